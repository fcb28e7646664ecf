#!/bin/sh
# A plan for tools/vm/run-vm (not part of the suite): a tracefs kprobe on
# inode_permission, no BPF, enabled, stat()s, disabled, five times over;
# then, unless PERMSCOPE_RUNS=0, `permscope record --mode kprobe -d 2`
# twice in a row, machine-wide (lookup, access, exec), with stat(),
# access() and exec loops run once the probes are attached.
# A 7.2 built with -Os (tinyconfig's CONFIG_CC_OPTIMIZE_FOR_SIZE) crashed
# the second time the kprobe was enabled: kprobe_ftrace_handler at an odd
# address, its re-patched trampoline call became a jmp (docs/vm.md).  The
# rounds go to the console too, so a crash shows which one;
# /out/result ends with "OK".
#   tools/vm/run-vm KERNELDIR tests/vm/kprobe-rearm-plan.sh OUTDIR
set -u
T=/sys/kernel/tracing
grep -q " $T " /proc/mounts || mount -t tracefs nodev $T || { echo "no tracefs" > /out/result; exit 1; }
E=$T/events/kprobes/ps_test/enable
echo 'p:ps_test inode_permission' > $T/kprobe_events || { echo "no kprobe_events" > /out/result; exit 1; }
for round in 1 2 3 4 5; do
	echo "kprobe-rearm: round $round" | tee /out/result > /dev/console
	echo 1 > $E
	grep '^inode_permission' $T/enabled_functions > /dev/console
	for f in / /proc /sys /bin /bin/sh /out /mnt/tmpfs; do stat "$f" > /dev/null; done
	echo 0 > $E
	stat / > /dev/null
done
cat $T/kprobe_profile
echo '-:ps_test' >> $T/kprobe_events
echo "tracefs OK" | tee /out/result
if [ "${PERMSCOPE_RUNS:-2}" != 0 ]; then
	mkdir -p /mnt/tmpfs/d1/d2 && : > /mnt/tmpfs/d1/d2/f
	for run in 1 2; do
		echo "permscope run $run" | tee -a /out/result
		/permscope record --mode kprobe -d 2 --families lookup,access,exec \
			-o "/out/record-$run.json" > /dev/null 2> /tmp/rec.err &
		rec=$!
		i=0 # the workloads start once the probes are attached
		until grep -q Recording /tmp/rec.err || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
		/workload stat 2000 /mnt/tmpfs/d1/d2/f
		/workload access 500
		/workload exec-missing 50
		wait $rec || { echo "permscope run $run failed with $?" | tee -a /out/result; exit 1; }
	done
fi
echo OK | tee -a /out/result
