# The namespace setup (@hpt-bench/sandbox, src/sandbox.ts `planFor`): run by /bin/sh -c as (namespace-)root inside
# the new namespaces, in the run's temp dir (which holds main.py and an empty root/). Positional parameters:
#   $1 python, $2 RLIMIT_AS bytes, $3 CPU seconds, $4 nproc, $5 fsize bytes, $6 nofile, $7 uid and $8 gid to drop to
#   ('' = keep), $9 the backstop in seconds ('' = none), ${10} the run's cgroup directory ('' = none; joined first, so
#   everything the run does is charged to it), ${11} the harness (python/harness.py), then the entries of the new
#   root: link:/bin (copy the symlink) or bind:/usr (read-only bind).
# It builds a size-limited tmpfs root (ROOT_SIZE) with those entries, a private /proc and the work dir /tmp/w (a copy
# of main.py, owned by the run's uid), reports success on fd 3 and closes it before exec (so the program cannot
# forge it), then chroots into it and runs the harness as the run's uid with no capabilities, no new privileges and
# the rlimits. Any failure exits 125 with "hpt-sandbox: setup failed: <step>" on stderr.
ROOT_SIZE=64m
fail() { echo "hpt-sandbox: setup failed: $1" >&2; exit 125; }
py=$1; as=$2; cpu=$3; nproc=$4; fsize=$5; nofile=$6; uid=$7; gid=$8; backstop=$9; cg=${10}; harness=${11}; shift 11
if [ -n "$cg" ]; then echo 0 > "$cg/cgroup.procs" || fail cgroup; fi
guard=; if [ -n "$backstop" ]; then guard="timeout -s KILL $backstop"; fi
mount -t tmpfs -o size=$ROOT_SIZE,mode=755,nosuid,nodev tmpfs root || fail root
links=; binds=; dirs="root/tmp/w root/proc"
for e in "$@"; do
  case $e in
    link:*) links="$links ${e#link:}" ;;
    bind:*) binds="$binds ${e#bind:}"; dirs="$dirs root${e#bind:}" ;;
  esac
done
mkdir -p $dirs && cp main.py root/tmp/w/main.py || fail workdir
if [ -n "$uid" ]; then chown -R "$uid:$gid" root/tmp/w || fail chown; fi
for d in $binds; do mount --bind -o ro "$d" "root$d" || fail "bind $d"; done
if [ -n "$links" ]; then cp -P $links root/ || fail links; fi
mount -t proc -o nosuid,nodev,noexec proc root/proc 2>/dev/null || :
unset PWD OLDPWD
printf ok >&3
exec 3>&-
if [ -n "$uid" ]; then
  exec $guard unshare --root=root --wd=/tmp/w setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- \
    prlimit --as="$as" --cpu="$cpu" --nproc="$nproc" --fsize="$fsize" --nofile="$nofile" --core=0 -- "$py" -I -B -c "$harness"
fi
exec $guard unshare --root=root --wd=/tmp/w setpriv --no-new-privs --inh-caps=-all --bounding-set=-all -- \
  prlimit --as="$as" --cpu="$cpu" --nproc="$nproc" --fsize="$fsize" --nofile="$nofile" --core=0 -- "$py" -I -B -c "$harness"
