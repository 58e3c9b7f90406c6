#!/bin/sh
# Runs once, when the PostgreSQL volume is created: a read-only role for Grafana's accounting
# dashboard (usage by org, project and model; budget burn). Accounting itself connects as postgres
# and creates its tables; every table it creates is readable by `grafana`.
set -eu
password=$(cat /run/secrets/grafana_db_password)
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE grafana LOGIN PASSWORD '$password';
GRANT CONNECT ON DATABASE $POSTGRES_DB TO grafana;
GRANT USAGE ON SCHEMA public TO grafana;
ALTER DEFAULT PRIVILEGES FOR ROLE $POSTGRES_USER IN SCHEMA public GRANT SELECT ON TABLES TO grafana;
SQL
