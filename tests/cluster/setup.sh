#!/bin/sh
# Installs what the cluster tests need, redis-server and haproxy (Debian packages), when they are
# missing. Exits non-zero, with a message, when they cannot be installed; the tests then skip
# with that message. The packages start system services where an init system runs; the tests
# start their own.
exec "$(dirname "$0")/../install-packages.sh" redis-server haproxy
