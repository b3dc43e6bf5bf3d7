# Sourced by scripts that need a throwaway PostgreSQL cluster of their own: the newest Debian
# PostgreSQL, in a folder the caller made (mode 0700: only its owner reaches the socket), on a
# Unix socket there and no TCP port, trust authentication. Run as root, the cluster belongs to
# the postgres user.
#
#   pg_start DIR [SERVER OPTIONS…]   initdb DIR/data and start it (options as `-c name=value`)
#   pg_stop DIR                      stop it (the caller removes DIR)
#   pg_url DIR                       the URL pkbench is given
#   pg_bin                           the folder of the PostgreSQL programs
#   url_quoted TEXT                  TEXT percent-encoded for a URL's host part (a socket folder)

pg_bin() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1; }
pg_as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

pg_start() {
    local dir=$1 bin
    shift
    bin=$(pg_bin)
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    pg_as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
    # Port 5432 names the socket file only: the cluster listens on no TCP port.
    pg_as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-p 5432 -k $dir -c listen_addresses='' $*" start >/dev/null
}

pg_stop() { pg_as_owner "$(pg_bin)/pg_ctl" -D "$1/data" -m fast stop >/dev/null 2>&1 || true; }

url_quoted() { python3 -c "import urllib.parse,sys; print(urllib.parse.quote(sys.argv[1], safe=''))" "$1"; }

pg_url() { echo "postgres://postgres@$(url_quoted "$1"):5432/postgres"; }
