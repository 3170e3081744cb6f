"""NXP PN532 NFC reader over HSU (UART) as a card shoe: frames, poller, serial driver."""
