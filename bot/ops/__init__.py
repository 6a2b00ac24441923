"""Running errfix for real: sync, metrics, logs, backups, doctor."""
