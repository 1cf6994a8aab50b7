"""spycraft: spy board games on a LAN with no server and no trusted dealer."""

PROTOCOL_VERSION = 1
