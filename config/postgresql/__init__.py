"""Django's PostgreSQL backend with a health check that costs no round trip and
timestamps parsed by psycopg's compiled loader (base.py, timestamps.py)."""
