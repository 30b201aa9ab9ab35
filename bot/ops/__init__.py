"""Operations: the heartbeat and health verdict, and the Prometheus metrics."""
