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
# `make bench-vm ARCH=arm64` measures Debian's arm64 builds of the same
# kernels (their guests' programs cross-built, the figures read here).
BENCH_VM_KERNELS = $(if $(filter arm64,$(ARCH)),sid-arm64 trixie-arm64 bookworm-arm64,sid trixie bookworm)
bench-vm: test-deps
	@$(MAKE) --no-print-directory ARCH=$(HOST_ARCH) permscope build/tests/workload
	$(if $(filter arm64,$(ARCH)),$(guest_arm64))
	PARTS="lookup access exec tax daemon bpftrace" tests/vm/overhead $(BENCH_VM_KERNELS)

vmtest: test-deps
	@$(MAKE) --no-print-directory $(VM_BINS)
	$(guest_arm64)
	@vm=0; tests/vm/vmtest || vm=$$?; tests/run-all --vm-only $(OUT)/tests && [ $$vm = 0 ]

# The whole suite on Debian's arm64 builds of the three kernels (docs/vm.md,
# "arm64"); test_vm_arm64 asserts what test_vm asserts on amd64.  Long
# under TCG: make test boots sid-arm64 alone.
vmtest-arm64: test-deps
	@$(MAKE) --no-print-directory $(VM_BINS)
	$(guest_arm64)
	@vm=0; tests/vm/vmtest --arch arm64 || vm=$$?; $(OUT)/tests/test_vm_arm64 && [ $$vm = 0 ]

# The controls of tests/vm/patches (controls.conf): kernels built from
# Debian's source with one patch each, compared with the stock build by
# tools/permscope-ab, and asserted.  Long (docs/vm.md, "Controls": about an
# hour cold, minutes warm): not in make test, whose unit tests cover the
# patch and cache logic of build-kernel.
vmtest-src: test-deps kernel-deps
	@$(MAKE) --no-print-directory $(VM_BINS)
	@vm=0; tests/vm/controls || vm=$$?; \
		PERMSCOPE_VM_CONTROLS=$(CURDIR)/build/vm/controls $(OUT)/tests/test_vm_controls && [ $$vm = 0 ]
