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
ROUNDS=${ROUNDS:-3}
PARTS=${PARTS:-lookup access} # tests/vm/overhead narrows these
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
F=/mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file
mkdir -p /mnt/tmpfs/base/d1/d2/d3/d4/d5/d6
: > "$F"

# measure NAME [record options]: the command $RUN under `permscope record`
# (or without it for a NAME ending in "none"), once the probes are attached.
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
			i=0
			until grep -q Recording /tmp/rec.err 2>/dev/null || [ $i -ge 200 ]; do
				sleep 0.1
				i=$((i + 1))
			done
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
if part lookup; then
	echo "stats $N" >> /out/overhead.txt
	# The checks one stat makes, counted by the probes themselves.
	$P record -q --families lookup --mode kprobe -o /out/calls.json -- $W stat "$N" "$F"
	RUN="$W time-stat $N $F"
	measure none
	for mode in fentry kprobe; do
		EMPTY=1 measure "empty-$mode" --families lookup --mode $mode
		EMPTY=
		for step in 1 2 3; do
			STOP=$step measure "step$step-$mode" --families lookup --mode $mode
		done
		STOP=
		measure "lookup-$mode" --families lookup --mode $mode
		# A process filter that excludes the workload: what everyone else pays.
		measure "excluded-$mode" --families lookup --mode $mode --pid 1
	done
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
	echo "accesses $NA" >> /out/overhead.txt
	RUN="$W time-access $NA /"
	measure access-none
	for mode in fentry tracepoint; do
		# the call window's hooks with empty programs: their floor
		if [ $mode = fentry ]; then
			EMPTY=1 measure "access-empty-$mode" --families access --mode $mode
			EMPTY=
		fi
		measure "access-$mode" --families access --mode $mode
		measure "access-$mode-pid-out" --families access --mode $mode --pid 1
		measure "access-$mode-comm-out" --families access --mode $mode --comm no-such-task
		measure "access-$mode-cgroup-out" --families access --mode $mode --cgroup "$CG"
		RUN="$W join-cgroup $CG time-access $NA /"
		measure "access-$mode-cgroup-in" --families access --mode $mode --cgroup "$CG"
		RUN="$W time-access $NA /"
	done
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
