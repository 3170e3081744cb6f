"""Off-the-shelf RFID readers that print one tag a line, adapted to the card-shoe interface."""
