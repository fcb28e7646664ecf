#!/bin/sh
# Guest side of tests/vm/overhead, run under QEMU -icount shift=0,sleep=off:
# guest time is executed instructions, so `workload time-stat` (and
# time-access) prints the instructions N calls took.  Each configuration
# runs ROUNDS times and its smallest figure is kept (the rest of the guest
# is idle).  PARTS says which families' costs to measure.
set -u
P=/permscope
W=/workload
N=${N_STAT:-20000}
NA=${N_ACCESS:-20000}
NE=${N_EXEC:-5000}
ROUNDS=${ROUNDS:-3}
PARTS=${PARTS:-lookup access} # tests/vm/overhead narrows these
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
F=/mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file
mkdir -p /mnt/tmpfs/base/d1/d2/d3/d4/d5/d6
: > "$F"

# wait_for WORD FILE TENTHS: until FILE has WORD, TENTHS tenths of a second
# at most; false if it never came.
wait_for() {
	i=0
	until grep -q "$1" "$2" 2>/dev/null; do
		[ $i -lt "$3" ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

# measure NAME [record options]: the command $RUN under `permscope record`
# (or without it for a NAME ending in "none"), once the probes are attached.
# A recording that never attaches (a mode this kernel does not have:
# arm64's 6.1 refuses fentry) gives no figure: its loop would measure no
# probe at all.  Its first error line goes to overhead-refused.txt.
measure() {
	name=$1
	shift
	best=
	for r in $(seq "$ROUNDS"); do
		case $name in
		*none) t=$($RUN) ;;
		*)
			rm -f /tmp/rec.err
			# EMPTY: the empty programs, the floor; STOP=N: the check
			# stopped after step N (PERMSCOPE_BENCH_STOP)
			env ${EMPTY:+PERMSCOPE_EMPTY_PROGRAMS=1} ${STOP:+PERMSCOPE_BENCH_STOP=$STOP} \
				$P record "$@" -d 100000 -o /tmp/o.json 2>/tmp/rec.err &
			rec=$!
			if ! wait_for Recording /tmp/rec.err 200; then
				kill -INT $rec 2>/dev/null
				wait $rec
				echo "$name $(grep -m 1 -v '^Warning' /tmp/rec.err)" >> /out/overhead-refused.txt
				return
			fi
			t=$($RUN)
			kill -INT $rec
			wait $rec
			cp /tmp/o.json "/out/$name-$r.json"
			;;
		esac
		[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
	done
	echo "$name $best" >> /out/overhead.txt
}

: > /out/overhead.txt

# The loops the lookup and the access parts (and bpftrace's) measure, and
# their baselines, once: `stats N` and the checks one stat makes, counted
# by the probes themselves (calls.json), then `none`; `accesses N`, then
# `access-none`.  Each leaves RUN set to its loop.
lookup_baseline() {
	RUN="$W time-stat $N $F"
	grep -q "^none " /out/overhead.txt && return
	echo "stats $N" >> /out/overhead.txt
	$P record -q --families lookup --mode kprobe -o /out/calls.json -- $W stat "$N" "$F"
	measure none
}
access_baseline() {
	RUN="$W time-access $NA /"
	grep -q "^access-none " /out/overhead.txt && return
	echo "accesses $NA" >> /out/overhead.txt
	measure access-none
}

# bpftrace: what a user's one-liner costs on the same loops, the scripts
# of `permscope bench --overhead` (src/bench/overhead.c; a unit test keeps the
# two the same): the MAY_EXEC posting's lookup one-liner per stat() check,
# the latency-and-allocations script per access() call.  bpftrace is in
# the initramfs only when tests/vm/overhead found it on the host.  First,
# on a guest nothing else has run in yet, and under timeout(1): on 6.1,
# bpftrace 0.17 once never came to attach after the other parts had run.
BT_LOOKUP='kprobe:security_inode_permission { @[str(((struct inode *)arg0)->i_sb->s_type->name), ((struct inode *)arg0)->i_opflags & 0x80] = count(); }'
BT_ACCESS='tracepoint:syscalls:sys_enter_access { @start[tid] = nsecs; } tracepoint:syscalls:sys_exit_access /@start[tid]/ { @lat = hist(nsecs - @start[tid]); delete(@start[tid]); } tracepoint:kmem:kmem_cache_alloc { @allocs = count(); }'
# arm64 has no access(2): glibc's access() is faccessat(2) there (src/bench_catalogue.c)
[ "$(uname -m)" != aarch64 ] || BT_ACCESS=$(echo "$BT_ACCESS" | sed 's/_access /_faccessat /g')

# stop_bpftrace PID: SIGINT (it prints its maps and detaches), and SIGKILL
# if it is still there 30 s later: bpftrace 0.17 on 6.1 never ends after a
# SIGINT with its kprobe attached (seen under TCG).
# (An exited child stays a zombie until waited for: kill -0 would say it
# is there.)
running() { [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status"; }
stop_bpftrace() {
	kill -INT "$1" 2>/dev/null
	i=0
	while running "$1" && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	running "$1" && echo "bpftrace ignored SIGINT for 30 s: killed" >> /tmp/bt.out
	kill -KILL "$1" 2>/dev/null
	wait "$1"
}

# measure_bpftrace NAME SCRIPT: $RUN while bpftrace runs SCRIPT (started,
# compiled and attached first: it prints "Attaching" then).
measure_bpftrace() {
	best=
	for r in $(seq "$ROUNDS"); do
		timeout 900 /bpftrace -e "$2" > /tmp/bt.out 2>&1 &
		bt=$!
		if ! wait_for Attaching /tmp/bt.out 600; then
			echo "$1: bpftrace did not attach:"
			cat /tmp/bt.out
			stop_bpftrace $bt
			return
		fi
		sleep 1 # "Attaching N probes..." comes before the last attach
		t=$($RUN)
		stop_bpftrace $bt
		cp /tmp/bt.out "/out/$1-$r.txt"
		[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
	done
	echo "$1 $best" >> /out/overhead.txt
}

if part bpftrace; then
	if [ -x /bpftrace ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
		mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
		lookup_baseline
		measure_bpftrace bpftrace-lookup "$BT_LOOKUP"
		access_baseline
		measure_bpftrace access-bpftrace "$BT_ACCESS"
	else
		echo "bpftrace: not in the guest (not installed on the host)"
	fi
fi

if part lookup; then
	lookup_baseline
	for mode in fentry kprobe; do
		EMPTY=1 measure "empty-$mode" --families lookup --mode $mode
		EMPTY=
		for step in 1 2 3; do
			STOP=$step measure "step$step-$mode" --families lookup --mode $mode
		done
		STOP=
		measure "lookup-$mode" --families lookup --mode $mode
		# --lean: no program on inode_permission()
		measure "lean-$mode" --families lookup --mode $mode --lean
		# A process filter that excludes the workload: what everyone else pays.
		measure "excluded-$mode" --families lookup --mode $mode --pid 1
	done
	# No --mode: what this kernel's default costs (its mode is in the profile).
	measure lookup-default --families lookup
	measure lean-default --families lookup --lean
fi

# access: N x access("/", R_OK) with root's default creds, per call.  The
# filter runs in the programs that open the call window; each
# "-out" configuration has a filter that excludes the workload, so it
# costs that one check and no counting.
# --cgroup: the workload moved into a cgroup (counted) or left outside it.
if part access; then
	grep -q " cgroup2 " /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
	CG=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)/permscope-overhead
	mkdir -p "$CG"
	access_baseline
	for mode in fentry kprobe tracepoint; do
		# the call window's hooks with empty programs: their floor
		if [ $mode != tracepoint ]; then
			EMPTY=1 measure "access-empty-$mode" --families access --mode $mode
			EMPTY=
			# where the instructions go: stopped after step N (bpf/access.bpf.c)
			for step in 1 2 3; do
				STOP=$step measure "access-step$step-$mode" --families access --mode $mode
			done
			STOP=
		fi
		measure "access-$mode" --families access --mode $mode
		[ $mode = tracepoint ] || measure "access-lean-$mode" --families access --mode $mode --lean
		measure "access-$mode-pid-out" --families access --mode $mode --pid 1
		measure "access-$mode-comm-out" --families access --mode $mode --comm no-such-task
		measure "access-$mode-cgroup-out" --families access --mode $mode --cgroup "$CG"
		RUN="$W join-cgroup $CG time-access $NA /"
		measure "access-$mode-cgroup-in" --families access --mode $mode --cgroup "$CG"
		RUN="$W time-access $NA /"
	done
	measure access-default --families access
	measure access-lean-default --families access --lean
fi

# exec: N failing execve()s of a path that does not exist (the $PATH
# search's misses), per call: the exec family in fentry mode (its window
# fentry/fexit on __x64_sys_execve) and kprobe mode (kprobe/kretprobe), the
# same hooks with empty programs, a process the filter excludes,
# tracepoint mode, and the default.
if part exec; then
	echo "execs $NE" >> /out/overhead.txt
	RUN="$W time-exec $NE /no/such/program"
	measure exec-none
	for mode in fentry kprobe; do
		EMPTY=1 measure "exec-empty-$mode" --families exec --mode $mode
		EMPTY=
		# where the instructions go: stopped after step N (bpf/exec.bpf.c)
		for step in 1 2 3; do
			STOP=$step measure "exec-step$step-$mode" --families exec --mode $mode
		done
		STOP=
		measure "exec-$mode" --families exec --mode $mode
		measure "exec-lean-$mode" --families exec --mode $mode --lean
	done
	measure exec-fentry-pid-out --families exec --mode fentry --pid 1
	measure exec-tracepoint --families exec --mode tracepoint
	measure exec-default --families exec
	measure exec-lean-default --families exec --lean
fi

# tax: what an unrelated syscall pays while a family records: N stat()s of
# the tmpfs file (the lookup part's loop) with the access or exec family
# loaded, against the same loop with nothing loaded.  A syscall tracepoint
# puts every task on the syscall-work slow path; function hooks do not.
if part tax; then
	echo "taxed-stats $N" >> /out/overhead.txt
	RUN="$W time-stat $N $F"
	measure tax-none
	for mode in fentry kprobe tracepoint; do
		for fam in access exec; do
			measure "tax-$fam-$mode" --families $fam --mode $mode
		done
	done
fi

# daemon: what a user pays while `permscope daemon` runs, as a share of
# their own work: the seed's three loops, `stat()` of the 6-deep tmpfs
# path, `access()` on distinct files, a failing execvp() over a 7-entry
# $PATH (one call: seven ENOENTs), each for a span of guest time, with no
# daemon, with `--duty-cycle always` (every call), and with the daemon's
# defaults (DUTY=W/P instead tries another duty cycle).  What a daemon
# left running pays, not its start: each span begins a period after the
# daemon said it listens (its loading, BTF and first attach are paid
# once), and a duty-cycled daemon's span is two whole periods (read from
# its "counting ..." line), so it is charged exactly two windows, attach
# and detach included; the rest span SPAN_S (2 s).  Each line: NAME CALLS
# NS.  Nothing scrapes the daemon: its snapshots (the default --interval)
# run.
if part daemon; then
	SPAN_S=${SPAN_S:-2}
	mkdir -p /mnt/tmpfs/access-files
	P7=
	for i in 1 2 3 4 5 6 7; do
		mkdir -p /mnt/tmpfs/path$i
		P7=$P7${P7:+:}/mnt/tmpfs/path$i
	done
	span_loop() { # BENCH SECONDS: the loop of BENCH for SECONDS
		case $1 in
		stat) $W span-stat "$2" "$F" ;;
		access) $W span-access "$2" /mnt/tmpfs/access-files ;;
		execvp) PATH=$P7 $W span-execvp "$2" permscope-no-such-program ;;
		esac
	}
	for conf in none always default; do
		if [ $conf != none ]; then
			rm -rf /tmp/psd-ovh
			case $conf in
			always) set -- --duty-cycle always ;;
			default) set -- ${DUTY:+--duty-cycle "$DUTY"} ;;
			esac
			$P daemon --state-dir /tmp/psd-ovh --listen 127.0.0.1:9479 "$@" \
				2> /tmp/daemon-ovh.err &
			dpid=$!
			if ! wait_for "listening on" /tmp/daemon-ovh.err 600; then
				echo "daemon ($conf) did not start:"
				cat /tmp/daemon-ovh.err
				kill -TERM $dpid
				wait $dpid
				continue
			fi
			cp /tmp/daemon-ovh.err "/out/daemon-$conf.err"
		fi
		span=$SPAN_S
		period=$(sed -n 's/.*counting [0-9.e+-]* s in every \([0-9.e+-]*\) s.*/\1/p' \
			/tmp/daemon-ovh.err 2>/dev/null | head -1)
		[ $conf = default ] && [ -n "$period" ] && span=$(awk -v p="$period" 'BEGIN {print 2 * p}')
		[ $conf = none ] || sleep "${period:-$SPAN_S}"
		for bench in stat access execvp; do
			echo "daemon-$bench-$conf $(span_loop $bench "$span")" >> /out/overhead.txt
		done
		if [ $conf != none ]; then
			kill -TERM $dpid
			wait $dpid
			rm -f /tmp/daemon-ovh.err
		fi
	done
fi
