"""The reference serial link shared by the shoe and the chip sensors: framing, ACK/NAK, driver."""
