"""The CURVE keys of a simulated table: the server's, a display's and a console's.

:func:`rig_keys` makes them once in ``DIR/keys`` (the server's secret key, and the display's and
console's public keys in the allow-list folders the table configuration names), and finds the
ones an earlier start in the same directory made, so a daemon started again (``sim run`` again,
a rig restarted on its work directory) keeps the keys its clients hold.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from table_controller.feeds import create_key_pair

#: the key pairs a simulated table has, by name
KEY_NAMES = ("server", "display", "console")


def rig_keys(kdir: Path) -> dict[str, Path]:
    """Make (or find) the simulated table's key files in ``kdir``; return them by role.

    :returns: ``server_secret``, ``server_public``, ``display_secret`` and ``console_secret``.
    """
    if all((kdir / f"{n}.key_secret").exists() for n in KEY_NAMES):
        # made by an earlier start in this directory: keep them
        return {"server_secret": kdir / "server.key_secret",
                "server_public": kdir / "server.key",
                "display_secret": kdir / "display.key_secret",
                "console_secret": kdir / "console.key_secret"}
    for sub in ("displays", "consoles"):
        (kdir / sub).mkdir(parents=True, exist_ok=True)
    secrets = {n: create_key_pair(kdir, n)[1] for n in KEY_NAMES}
    shutil.copy(kdir / "display.key", kdir / "displays" / "display.key")
    shutil.copy(kdir / "console.key", kdir / "consoles" / "console.key")
    return {"server_secret": secrets["server"], "server_public": kdir / "server.key",
            "display_secret": secrets["display"], "console_secret": secrets["console"]}
