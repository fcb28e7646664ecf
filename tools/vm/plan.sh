#!/bin/sh
# The VM suite's plan, run by tools/vm/init inside the guest as root.  Every
# workload is recorded on its own with `permscope record -- WORKLOAD`, so
# each profile counts exactly one known workload.  Profiles go to /out.
set -u
P=/permscope
W=/workload
N_STAT=${N_STAT:-20000}
N_ACCESS=${N_ACCESS:-2000}
N_EXEC=${N_EXEC:-500}
# Every family, as permscope lists them: the plan writes no list of its own.
FAMILIES=""
for f in $($P record --list-families); do
	FAMILIES=${FAMILIES:+$FAMILIES }$f
done
[ -n "$FAMILIES" ] || echo "permscope-vm: permscope record --list-families listed no family"
# all_but FAMILY: the others, comma-separated (a --families LIST)
all_but() {
	list=""
	for f in $FAMILIES; do
		[ "$f" = "$1" ] || list=${list:+$list,}$f
	done
	echo "$list"
}
ALL=$(all_but '')
WORKLOADS=${WORKLOADS:-$FAMILIES tracers} # tools/permscope-ab narrows these
# `default` is no --mode: the mode permscope picks for this kernel.
MODES=${MODES:-default fentry kprobe tracepoint}
want() { case " $WORKLOADS " in *" $1 "*) return 0 ;; esac; return 1; }
# The families WORKLOADS names, comma-separated: what the mixed runs and
# verify record (all of them unless tools/permscope-ab's --workload narrows).
wanted=""
for f in $FAMILIES; do
	want $f && wanted=${wanted:+$wanted,}$f
done
# The modes of MODES among the given ones: the cases written for the
# default, fentry and kprobe run in those tools/permscope-ab asks for
# (--mode) and no other.
modes_in() { for m; do case " $MODES " in *" $m "*) echo "$m" ;; esac; done; }
mode_opt() { [ "$1" = default ] || echo "--mode $1"; }

# "== NAME" into plan.log, and "permscope-vm: workload NAME" on the
# console as it starts, where tools/vm/run-vm prints it with the time
# (plan.log comes back only at the end).
step() {
	echo "== $1"
	echo "permscope-vm: workload $1" > /dev/console 2>/dev/null || true
}
rec() { # rec NAME FAMILIES [record options] -- WORKLOAD...
	name=$1 families=$2
	shift 2
	step "$name"
	$P record -q --families "$families" -o "/out/$name.json" "$@" ||
		echo "permscope-vm: recording $name failed with $?"
}

$P check --json > /out/check.json 2>/out/check.stderr
# The attach order without debugfs' sched/preempt (what a kernel's version
# and build still tell), and a forced fentry, which warns where the kernel
# can preempt a BPF program.
if umount /sys/kernel/debug; then
	$P check --json --no-self-test > /out/check-nodebugfs.json 2>/out/check-nodebugfs.stderr
	mount -t debugfs debugfs /sys/kernel/debug
fi
$P check --json --no-self-test --mode fentry > /out/check-fentry.json 2>/out/check-fentry.stderr
# What the host-side assertions (tests/vm/test_vm.c) count with.
printf '{"n_stat": %d, "n_access": %d, "n_exec": %d, "n_stat4": %d}\n' "$N_STAT" \
	"$N_ACCESS" "$N_EXEC" "${N_STAT4:-10000}" > /out/params.json

# lookup: stat a file at the end of a 6-deep tree of 0755 directories, and
# the same with d3 carrying an allowing ACL, or mode 0711, or mode 0750.
for fs in tmpfs ext4 btrfs; do
	want lookup || break
	if ! grep -q " /mnt/$fs " /proc/mounts; then
		echo "permscope-vm: /mnt/$fs is not mounted, no lookup runs there"
		continue
	fi
	for variant in base acl 0711 0750; do
		top=/mnt/$fs/$variant
		mkdir -p "$top/d1/d2/d3/d4/d5/d6"
		chmod 0755 "$top" "$top/d1" "$top/d1/d2" "$top/d1/d2/d3" "$top/d1/d2/d3/d4" \
			"$top/d1/d2/d3/d4/d5" "$top/d1/d2/d3/d4/d5/d6"
		: > "$top/d1/d2/d3/d4/d5/d6/file"
		case $variant in
		acl) $W setacl "$top/d1/d2/d3" ;;
		0711 | 0750) chmod "$variant" "$top/d1/d2/d3" ;;
		esac
		rec "lookup-$fs-$variant" lookup -- $W stat "$N_STAT" "$top/d1/d2/d3/d4/d5/d6/file"
	done
done

# --lean: lookup without its inode_permission() program, the same stat loop
# as lookup-tmpfs-base: the same counts, its three rows absent.
if want lookup && grep -q " /mnt/tmpfs " /proc/mounts; then
	rec lookup-tmpfs-lean lookup --lean -- $W stat "$N_STAT" /mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file
fi

# four processes on two vCPUs, a d3 of 0750 among them, in the default mode,
# fentry and kprobe; checks that are not path walks (chdir, access, refused ones);
# a chmod racing the checks; filesystems that never opt in; a process busy
# before the probes attach; the --comm filter.
wait_for() { # wait_for FILE TEXT: until FILE holds TEXT, 30 s at most
	i=0
	until grep -qF "$2" "$1" 2>/dev/null || [ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
if want lookup && grep -q " /mnt/tmpfs " /proc/mounts; then
	T=/mnt/tmpfs
	F=$T/base/d1/d2/d3/d4/d5/d6/file
	G=$T/0750/d1/d2/d3/d4/d5/d6/file
	N4=${N_STAT4:-10000}
	D=$T/deny/d1/d2
	mkdir -p "$D" "$T/race/d1/d2/d3" && : > "$D/file" && : > "$T/race/d1/d2/d3/file"
	chmod 0755 "$T/deny" && chmod 0700 "$T/deny/d1"
	for mode in $(modes_in default fentry kprobe); do
		four() { echo "$W stat $N4 $1 & $W stat $N4 $1 & $W stat $N4 $1 & $W stat $N4 $1 & wait"; }
		rec "four-base-$mode" lookup $(mode_opt $mode) -- /bin/sh -c "$(four "$F")"
		# four shells forking 400 one-stat workloads each: the fork
		# follower must add every child, racing the others on two vCPUs
		forks="i=0; while [ \$i -lt 400 ]; do $W stat 1 $F; i=\$((i + 1)); done"
		rec "forks-$mode" lookup $(mode_opt $mode) -- /bin/sh -c \
			"sh -c '$forks' & sh -c '$forks' & sh -c '$forks' & sh -c '$forks' & wait"
		rec "four-0750-$mode" lookup $(mode_opt $mode) -- /bin/sh -c "$(four "$G")"
		rec "chdir-$mode" lookup $(mode_opt $mode) -- $W chdir 1000 "$T/base/d1/d2/d3/d4/d5/d6"
		rec "access-x-$mode" lookup $(mode_opt $mode) -- $W access-x 1000 "$T/base/d1/d2/d3/d4/d5/d6"
		rec "denied-$mode" lookup $(mode_opt $mode) -- $W denied 1000 "$D/file"
		rec "race-$mode" lookup $(mode_opt $mode) -- /bin/sh -c \
			"$W chmod-loop 20000 $T/race/d1/d2 & $W stat $N4 $T/race/d1/d2/d3/file & $W stat $N4 $T/race/d1/d2/d3/file & wait"
		rec "notopted-$mode" lookup $(mode_opt $mode) -- /bin/sh -c \
			"$W stat 100 /proc/self/status && $W stat 100 /sys/kernel/mm"
		# Busy before the probes attach: a filtered and a whole-machine recording.
		$W busy 600 "$F" &
		busy=$!
		sleep 1
		$P record -q --families lookup $(mode_opt $mode) --pid $busy -d 2 -o "/out/busy-pid-$mode.json"
		$P record -q --families lookup $(mode_opt $mode) -d 2 -o "/out/busy-all-$mode.json"
		kill $busy
		wait $busy
		# --comm: the process starts once the probes are attached.
		rm -f /tmp/comm.err
		$P record --families lookup $(mode_opt $mode) --comm workload -d 30 \
			-o "/out/comm-$mode.json" > /dev/null 2> /tmp/comm.err &
		rec_pid=$!
		wait_for /tmp/comm.err Recording
		$W stat 2000 "$F"
		kill -INT $rec_pid
		wait $rec_pid || echo "permscope-vm: comm-$mode recording failed"
	done
fi

# --cgroup: a workload that moves itself into a cgroup v2 directory, one
# that moves into a cgroup below it, and the same workload, busier, left
# outside both, recorded with --cgroup in every mode (lookup: fentry and
# kprobe; access: all three).  The guest mounts cgroup2 if nothing has.
cgrec() { # cgrec NAME FAMILY MODE COMMAND: record --cgroup $CG while COMMAND runs
	rm -f /tmp/cg.err
	$P record --families "$2" $(mode_opt "$3") --cgroup "$CG" -d 60 -o "/out/$1.json" \
		> /dev/null 2> /tmp/cg.err &
	rec_pid=$!
	wait_for /tmp/cg.err Recording
	/bin/sh -c "$4"
	kill -INT $rec_pid
	wait $rec_pid || { echo "permscope-vm: $1 recording failed:"; cat /tmp/cg.err; }
}
if ! grep -q " cgroup2 " /proc/mounts && ! mount -t cgroup2 none /sys/fs/cgroup; then
	echo "permscope-vm: no cgroup2 here, the --cgroup cases are not run"
else
	CG=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)/permscope-vm
	mkdir -p "$CG/inner"
	if want lookup && grep -q " /mnt/tmpfs " /proc/mounts; then
		F=/mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file
		for mode in $(modes_in default fentry kprobe); do
			cgrec "cgroup-lookup-$mode" lookup $mode "$W join-cgroup $CG stat 1000 $F &&
				$W join-cgroup $CG/inner stat 500 $F && $W stat 3000 $F"
		done
	fi
	if want access; then
		for mode in $MODES; do
			cgrec "cgroup-access-$mode" access $mode "$W join-cgroup $CG access 300 &&
				$W join-cgroup $CG/inner access 200 && $W access 2000"
		done
	fi
fi

# The daemon (test_vm.c, "daemon"): attached with --comm before the stat loop
# of lookup-tmpfs-base runs again, scraped once the loop is done, stopped with
# SIGTERM.  Scraped a second time after 2000 more stats (daemon-metrics-2.txt):
# test_vm_dashboard.c replays the two to a real Prometheus, so that the
# dashboard's lookup rates have an increase to show.
if want lookup && grep -q " /mnt/tmpfs " /proc/mounts; then
	step daemon
	mkdir -p /tmp/psd
	$P daemon --interval 1 --duty-cycle always --state-dir /tmp/psd --listen 127.0.0.1:23649 \
		--families lookup --comm workload 2> /out/daemon.stderr &
	daemon=$!
	wait_for /out/daemon.stderr "listening on http://127.0.0.1:23649/metrics"
	$W stat "$N_STAT" /mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file
	sleep 2 # two intervals: the loop's last checks are in the totals
	busybox wget -q -O /out/daemon-metrics.txt http://127.0.0.1:23649/metrics ||
		echo "permscope-vm: the daemon's /metrics could not be read"
	$W stat 2000 /mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file
	sleep 2
	busybox wget -q -O /out/daemon-metrics-2.txt http://127.0.0.1:23649/metrics ||
		echo "permscope-vm: the daemon's /metrics could not be read a second time"
	kill -TERM $daemon
	# A daemon that ignores SIGTERM is killed 30 s later (status 137)
	# rather than holding the VM until its timeout.
	(sleep 30 && kill -KILL $daemon 2>/dev/null) &
	watchdog=$!
	status=0
	wait $daemon || status=$?
	kill $watchdog 2>/dev/null
	echo "$status" > /out/daemon-status.txt
fi

# Every family of WORKLOADS at once (all three by default), twice, so
# gate's rules have a whole kernel to judge and two runs of it to compare,
# whatever tools/permscope-ab's --workload records.  Each rule has calls to
# judge: the stat loops include directories that must not be skipped (0750,
# an ACL: lookup.violations), and access() runs with a capability cleared
# too (access.unsafe).
mixed_work="true"
! want lookup || mixed_work="$mixed_work && $W stat 2000 /mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file &&
	$W stat 200 /mnt/tmpfs/0750/d1/d2/d3/d4/d5/d6/file &&
	$W stat 200 /mnt/tmpfs/acl/d1/d2/d3/d4/d5/d6/file"
! want access || mixed_work="$mixed_work && $W access 500 && $W access-dropcap 200"
! want exec || mixed_work="$mixed_work && $W exec-missing 100"
for i in 1 2; do
	[ -n "$wanted" ] || break
	rec "mixed-$i" "$wanted" -- /bin/sh -c "$mixed_work"
done

# access: default creds, then one capability cleared from the effective set.
# exec: a $PATH search with the program in the 7th of 7 entries (6 ENOENT
# each), and execve of a missing absolute path.  Each in every attach mode.
mkdir -p /p/1 /p/2 /p/3 /p/4 /p/5 /p/6 /p/7
ln -sf /workload /p/7/ps-noop
for mode in $MODES; do
	if want access; then
		rec "access-default-$mode" access $(mode_opt $mode) -- $W access "$N_ACCESS"
		rec "access-dropcap-$mode" access $(mode_opt $mode) -- $W access-dropcap "$N_ACCESS"
	fi
	if want exec; then
		PATH=/p/1:/p/2:/p/3:/p/4:/p/5:/p/6:/p/7 \
			rec "exec-path-$mode" exec $(mode_opt $mode) -- $W exec-path "$N_EXEC" ps-noop
		rec "exec-missing-$mode" exec $(mode_opt $mode) -- $W exec-missing "$N_EXEC"
	fi
done
# --lean, in the default mode: no clock read, the same outcomes
want access && rec access-lean access --lean -- /bin/sh -c \
	"$W access $N_ACCESS && $W access-dropcap $N_ACCESS"
want exec && rec exec-lean exec --lean -- $W exec-missing "$N_EXEC"
# load (test_vm.c, "load"): 8 processes of 2 threads on the 2 vCPUs, each
# thread hammering one kind of call (access, access with a capability
# cleared, a missing execve, stat down the tmpfs tree) for LOAD_SECONDS,
# recorded with every family in the default mode, fentry and kprobe; the workload's
# own counts go beside each profile.
load_case() {
	grep -q " /mnt/tmpfs " /proc/mounts || return 0
	for mode in $(modes_in default fentry kprobe); do
		rec "load-$mode" "$ALL" $(mode_opt $mode) -- $W load "${LOAD_SECONDS:-4}" 8 2 \
			/mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file > "/out/load-$mode.txt"
	done
	# tracepoint mode has no lookup hook: access and exec alone
	for mode in $(modes_in tracepoint); do
		rec "load-$mode" "$(all_but lookup)" --mode $mode -- $W load "${LOAD_SECONDS:-4}" 8 2 \
			/mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file > "/out/load-$mode.txt"
	done
	# verify under the same load, in the default mode: a verdict, not 3.
	for mode in $(modes_in default); do
		step "verify-load-$mode"
		status=0
		$P verify -q --json-file "/out/verify-load-$mode.json" --families "$ALL" -- \
			$W load "${LOAD_SECONDS:-4}" 8 2 /mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file \
			> "/out/verify-load-$mode.txt" 2>&1 || status=$?
		echo "$status" > "/out/verify-load-$mode-status.txt"
	done
	# windows (test_vm.c, "windows"): the same load under a daemon that
	# counts 1 s in every 2 s: calls cut by a pause are left out whole,
	# so no access that needed the override reads as unsafe; its last
	# running total (SIGTERM writes one) goes to /out.
	for mode in $(modes_in default fentry kprobe); do
		step "windows-$mode"
		rm -rf /tmp/psw
		$P daemon --interval 1 --duty-cycle 1/2 --state-dir /tmp/psw --listen 127.0.0.1:23651 \
			--families "$ALL" $(mode_opt $mode) --comm workload 2> "/out/windows-$mode.stderr" &
		wd=$!
		wait_for "/out/windows-$mode.stderr" "listening on http://127.0.0.1:23651/metrics"
		$W load "${LOAD_SECONDS:-4}" 8 2 /mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file \
			> "/out/windows-$mode.txt"
		kill -TERM $wd
		wait $wd
		total=$(ls /tmp/psw/snap-*.total.json 2>/dev/null | tail -n 1)
		[ -n "$total" ] && cp "$total" "/out/windows-$mode.json"
	done
}
if want lookup && want access && want exec; then
	load_case
fi
# verify (test_vm.c, "verify"): the workloads above in one run of every
# family, in the default mode, fentry and kprobe, with the violation samples on: the stat loops on
# every variant of every filesystem (the ACL, 0711 and 0750 directories
# must not be skipped), default and capability-dropped access(), and the
# $PATH search and missing-path execs.  The verdict (JSON, and the text
# tools/permscope-ab prints) and its exit status go to /out; a kernel that
# broke an invariant exits 1 with samples.
# Of the families of WORKLOADS only (tools/permscope-ab's --workload), and
# in the default mode when MODES asks for tracepoint alone (lookup has no
# tracepoint mode, and verify's samples come from the function hooks).
work=""
if want lookup; then
	for fs in tmpfs ext4 btrfs; do
		grep -q " /mnt/$fs " /proc/mounts || continue
		for variant in base acl 0711 0750; do
			work="$work $W stat 500 /mnt/$fs/$variant/d1/d2/d3/d4/d5/d6/file;"
		done
	done
fi
! want access || work="$work $W access 500; $W access-dropcap 500;"
! want exec || work="$work $W exec-path 100 ps-noop; $W exec-missing 100;"
verify_modes=$(modes_in default fentry kprobe)
[ -n "$verify_modes" ] || verify_modes=default
if [ -n "$wanted" ]; then
	step verify
	for mode in $verify_modes; do
		status=0
		PATH=/p/1:/p/2:/p/3:/p/4:/p/5:/p/6:/p/7:$PATH $P verify -q --json-file /out/verify-$mode.json \
			--families "$wanted" $(mode_opt $mode) -- /bin/sh -c "$work" \
			> /out/verify-$mode.txt 2> /out/verify-$mode.stderr || status=$?
		echo "$status" > /out/verify-$mode-status.txt
	done
fi
# tracers (test_vm.c, "other tracers"): the same mixed workload of every
# family recorded alone, then with another tracer on the functions the
# probes read: bpftrace one-liners (kretprobe, kretfunc, kprobe, kfunc) on
# inode_permission and security_inode_permission, on the access and exec
# paths, a second permscope, and the function graph tracer on
# inode_permission (which hides the caller for good: unattributed).  Each
# attached before the recording, and (tracers-during-MODE) each attached
# and detached while one recording runs.  verify and check --self-test run
# under a kretprobe on inode_permission.  bpftrace is packed into the guest
# by tests/vm/vmtest when the host has it.
MIXED_N=2000
T_F=/mnt/tmpfs/base/d1/d2/d3/d4/d5/d6/file
T_ACL=/mnt/tmpfs/acl/d1/d2/d3/d4/d5/d6/file
# the workload, for sh -c: its counts are in tracers.json
MIXED="$W stat $MIXED_N $T_F && $W stat 200 $T_ACL && $W access 300 &&
	$W access-dropcap 100 && $W exec-missing 50"
bt_start() { # bt_start SCRIPT: bpftrace attached, its pid in $bt
	rm -f /tmp/bt.out
	timeout 900 /bpftrace -e "$1" > /tmp/bt.out 2>&1 &
	bt=$!
	i=0 # bpftrace compiles with LLVM first: a minute or more under TCG
	until grep -q Attaching /tmp/bt.out 2>/dev/null || [ $i -ge 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 2 # "Attaching N probes..." comes before the last attach
	grep -q Attaching /tmp/bt.out || { echo "permscope-vm: bpftrace did not attach: $1"; cat /tmp/bt.out; }
}
bt_stop() {
	kill -INT $bt 2>/dev/null
	i=0
	while grep -q '^State:[[:space:]]*[^Z]' /proc/$bt/status 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL $bt 2>/dev/null
	wait $bt
}
# The execve syscall's function under the architecture's syscall wrapper.
case $(uname -m) in
aarch64) SYS_EXECVE=__arm64_sys_execve ;;
*) SYS_EXECVE=__x64_sys_execve ;;
esac
TRACERS="kretprobe-ip:kretprobe:inode_permission
kretfunc-ip:kretfunc:inode_permission
kprobe-ip:kprobe:inode_permission
kfunc-sip:kfunc:security_inode_permission
kretprobe-sip:kretprobe:security_inode_permission
kretfunc-sip:kretfunc:security_inode_permission
kretprobe-ae:kretprobe:do_faccessat,kretprobe:prepare_creds,kretprobe:$SYS_EXECVE,kretprobe:mm_alloc
kretfunc-ae:kretfunc:do_faccessat,kretfunc:prepare_creds,kretfunc:$SYS_EXECVE,kretfunc:mm_alloc
kfunc-ae:kfunc:do_faccessat,kfunc:prepare_creds,kfunc:$SYS_EXECVE,kfunc:mm_alloc"
if want tracers && want lookup && want access && want exec && grep -q " /mnt/tmpfs " /proc/mounts; then
	mkdir -p /mnt/tmpfs/acl/d1/d2/d3/d4/d5/d6 /mnt/tmpfs/base/d1/d2/d3/d4/d5/d6
	: > "$T_F" && : > "$T_ACL" && $W setacl /mnt/tmpfs/acl/d1/d2/d3
	printf '{"stat": %d, "stat_acl": 200, "access": 300, "access_dropcap": 100, "exec_missing": 50}\n' \
		$MIXED_N > /out/tracers.json
	if [ ! -x /bpftrace ]; then
		echo "no bpftrace in the guest (apt-get install bpftrace on the host; an arm64 guest takes the sysroot's, make vmtest)" > /out/tracers-skipped.txt
	else
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
		for mode in $(modes_in fentry kprobe); do
			rec "tracers-solo-$mode" "$ALL" $(mode_opt $mode) -- /bin/sh -c "$MIXED"
		done
		echo "$TRACERS" | while IFS=: read -r tracer probes; do
			bt_start "$probes { @n = count(); }"
			for mode in $(modes_in fentry kprobe); do
				rec "tracers-$tracer-$mode" "$ALL" $(mode_opt $mode) -- /bin/sh -c "$MIXED"
			done
			bt_stop
			cp /tmp/bt.out "/out/tracers-$tracer-bt.txt"
		done
		# a second permscope: a daemon of every family in the same mode
		for mode in $(modes_in fentry kprobe); do
			$P daemon --interval 1 --duty-cycle always --state-dir /tmp/psd2 --listen 127.0.0.1:9465 \
				--families "$ALL" $(mode_opt $mode) 2> /tmp/psd2.err &
			d2=$!
			wait_for /tmp/psd2.err "listening on"
			rec "tracers-permscope-$mode" "$ALL" $(mode_opt $mode) -- /bin/sh -c "$MIXED"
			kill -TERM $d2
			wait $d2
		done
		# the function graph tracer on inode_permission: unattributed, never judged
		if echo inode_permission > /sys/kernel/tracing/set_graph_function &&
			echo function_graph > /sys/kernel/tracing/current_tracer; then
			for mode in $(modes_in fentry kprobe); do
				rec "tracers-fgraph-$mode" "$ALL" $(mode_opt $mode) -- /bin/sh -c "$MIXED"
				status=0
				$P verify -q --json-file "/out/tracers-fgraph-verify-$mode.json" --families lookup \
					$(mode_opt $mode) -- /bin/sh -c "$MIXED" > /dev/null 2>&1 || status=$?
				echo $status > "/out/tracers-fgraph-verify-$mode-status.txt"
			done
			# what it traced: proof that it ran (it may hide nothing from a hook before it)
			grep -m 20 inode_permission /sys/kernel/tracing/trace > /out/tracers-fgraph-trace.txt
			echo nop > /sys/kernel/tracing/current_tracer
			echo > /sys/kernel/tracing/set_graph_function
		fi
		# verify and the self-test under a kretprobe on inode_permission
		bt_start 'kretprobe:inode_permission { @n = count(); }'
		for mode in $(modes_in fentry kprobe); do
			status=0
			$P verify -q --json-file "/out/tracers-verify-$mode.json" --families "$ALL" \
				$(mode_opt $mode) -- /bin/sh -c "$MIXED" > /dev/null 2>&1 || status=$?
			echo $status > "/out/tracers-verify-$mode-status.txt"
		done
		$P check --json > /out/tracers-check.json 2> /out/tracers-check.stderr
		bt_stop
		# attached and detached during one recording: every tracer in turn
		for mode in $(modes_in fentry kprobe); do
			rm -f /tmp/during.err
			$P record --families "$ALL" $(mode_opt $mode) --comm workload -d 600 \
				-o "/out/tracers-during-$mode.json" > /dev/null 2> /tmp/during.err &
			rd=$!
			wait_for /tmp/during.err Recording
			phases=1
			/bin/sh -c "$MIXED"
			for probes in kretprobe:inode_permission kretfunc:inode_permission \
				kprobe:inode_permission kfunc:security_inode_permission; do
				bt_start "$probes { @n = count(); }"
				/bin/sh -c "$MIXED"
				bt_stop
				/bin/sh -c "$MIXED"
				phases=$((phases + 2))
			done
			$P daemon --interval 1 --duty-cycle always --state-dir /tmp/psd3 --listen 127.0.0.1:9466 \
				--families "$ALL" $(mode_opt $mode) 2> /tmp/psd3.err &
			d3=$!
			wait_for /tmp/psd3.err "listening on"
			/bin/sh -c "$MIXED"
			kill -TERM $d3
			wait $d3
			/bin/sh -c "$MIXED"
			phases=$((phases + 2))
			kill -INT $rd
			wait $rd || echo "permscope-vm: tracers-during-$mode recording failed"
			echo $phases > "/out/tracers-during-$mode-phases.txt"
		done
	fi
fi
# Refused on ext4 (test_vm.c, check_lookup_no_lsm_check): 1,000 stat()s as
# uid 65534 through a fresh 0700 d1 in each mode.  The first walk by a user
# who is not the owner through a directory whose ACL is not read yet (the
# mount root on 6.1 and 6.12, lookup-ext4-base's acl_not_cached) gives up
# its RCU walk (ECHILD) and is retried: an inode_permission() call with no
# LSM call that is no refusal.  Last in the plan: the ACL stays read after.
if want lookup && grep -q " /mnt/ext4 " /proc/mounts; then
	for mode in $(modes_in default fentry kprobe); do
		E=/mnt/ext4/deny-$mode
		mkdir -p "$E/d1/d2" && : > "$E/d1/d2/file"
		chmod 0755 "$E" && chmod 0700 "$E/d1"
		rec "denied-ext4-$mode" lookup $(mode_opt $mode) -- $W denied 1000 "$E/d1/d2/file"
	done
fi
echo "permscope-vm: plan finished"
