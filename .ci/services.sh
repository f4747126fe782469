# Sourced by `make test`: point the suite at PostgreSQL and Redis when they are reachable.
# With CI=true they must be: this starts them if they are stopped, and fails rather than
# falling back to SQLite (DESIGN.md, "Tests with a real worker").

PG_HOST=${PG_HOST:-127.0.0.1}
PG_PORT=${PG_PORT:-5432}
REDIS_HOST=${REDIS_HOST:-127.0.0.1}
REDIS_PORT=${REDIS_PORT:-6379}

_reachable() { # host port
    "${PY:-.venv/bin/python}" - "$1" "$2" <<'PYEOF' 2>/dev/null
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
except OSError:
    sys.exit(1)
PYEOF
}

_start_postgres() {
    if ! command -v pg_ctlcluster >/dev/null 2>&1; then
        .ci/apt-install postgresql >/dev/null
    fi
    for version in $(ls /etc/postgresql 2>/dev/null); do
        pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || true
    done
}

_start_redis() {
    if ! command -v redis-server >/dev/null 2>&1; then
        .ci/apt-install redis-server >/dev/null
    fi
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
        --dir /var/lib/redis --logfile /var/log/redis/ci.log >/dev/null
}

_wait_for() { # host port
    for _ in $(seq 1 30); do _reachable "$1" "$2" && return 0; sleep 1; done
    return 1
}

if [ "${CI:-}" = "true" ]; then
    _reachable "$PG_HOST" "$PG_PORT" || { echo "starting PostgreSQL"; _start_postgres; _wait_for "$PG_HOST" "$PG_PORT"; }
    _reachable "$REDIS_HOST" "$REDIS_PORT" || { echo "starting Redis"; _start_redis; _wait_for "$REDIS_HOST" "$REDIS_PORT"; }
fi

if [ -z "${DATABASE_URL:-}" ] && _reachable "$PG_HOST" "$PG_PORT"; then
    export DATABASE_URL="postgres://postgres@$PG_HOST:$PG_PORT/postgres"
fi
if [ -z "${CELERY_BROKER_URL:-}" ] && _reachable "$REDIS_HOST" "$REDIS_PORT"; then
    export CELERY_BROKER_URL="redis://$REDIS_HOST:$REDIS_PORT/0"
fi

case "${DATABASE_URL:-}" in
    postgres*) echo "tests use PostgreSQL at ${DATABASE_URL}" ;;
    *)
        if [ "${CI:-}" = "true" ]; then echo "CI=true but PostgreSQL is not reachable at $PG_HOST:$PG_PORT" >&2; return 1 2>/dev/null || exit 1; fi
        echo "tests use SQLite (PostgreSQL not reachable at $PG_HOST:$PG_PORT)" ;;
esac
case "${CELERY_BROKER_URL:-}" in
    redis*) echo "tests use Redis at ${CELERY_BROKER_URL}" ;;
    *)
        if [ "${CI:-}" = "true" ]; then echo "CI=true but Redis is not reachable at $REDIS_HOST:$REDIS_PORT" >&2; return 1 2>/dev/null || exit 1; fi
        echo "tests use the embedded broker (Redis not reachable at $REDIS_HOST:$REDIS_PORT)" ;;
esac
