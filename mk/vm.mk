# mk/vm.mk: QEMU: the VM suite, the controls built from source, the probes' cost under -icount.
# Included by the Makefile, whose variables it uses (make help lists the targets).

# The stock kernel of a Debian source package (or a kernel tree's path) with
# tools/vm/kconfig/permscope.config, where tools/vm/run-vm can boot it
# (docs/vm.md, "Kernels built from source").
KERNEL_SRC ?= linux-source-6.12
kernel-src: kernel-deps
	tools/vm/build-kernel $(KERNEL_SRC) build/vm/kernels/src-$(notdir $(KERNEL_SRC))

# What the probes cost, under QEMU -icount (guest time = executed
# instructions): extra guest instructions per probed call on sid and
# bookworm, against empty programs on the same hooks, and the tax on an
# unrelated stat() (docs/kernels.md, "Probe cost").  Long: not in make test.
bench-vm: test-deps
	@$(MAKE) --no-print-directory $(VM_BINS)
	PARTS="lookup access exec tax daemon bpftrace" tests/vm/overhead sid trixie bookworm

vmtest: test-deps
	@$(MAKE) --no-print-directory $(VM_BINS)
	@vm=0; tests/vm/vmtest || vm=$$?; tests/run-all --vm-only $(OUT)/tests && [ $$vm = 0 ]

# The controls of tests/vm/patches (controls.conf): kernels built from
# Debian's source with one patch each, compared with the stock build by
# tools/permscope-ab, and asserted.  Long (docs/vm.md, "Controls": about an
# hour cold, minutes warm): not in make test, whose unit tests cover the
# patch and cache logic of build-kernel.
vmtest-src: test-deps kernel-deps
	@$(MAKE) --no-print-directory $(VM_BINS)
	@vm=0; tests/vm/controls || vm=$$?; \
		PERMSCOPE_VM_CONTROLS=$(CURDIR)/build/vm/controls $(OUT)/tests/test_vm_controls && [ $$vm = 0 ]
