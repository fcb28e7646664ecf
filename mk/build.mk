# mk/build.mk: ./permscope, its BPF objects and skeletons, the version, vmlinux.h.
# Included by the Makefile, whose variables it uses (make help lists the targets).

# ./permscope is the last build's, whichever ARCH it was for, and
# PERMSCOPE_ARCH names that ARCH: rewritten only when it changes (its recipe
# runs on every make), so that `make` after `make ARCH=arm64` relinks the
# native ./permscope from the objects it has, and `make ARCH=arm64` after
# `make` copies the arm64 one back, neither compiling anything.
PERMSCOPE_ARCH := build/.permscope-arch
$(PERMSCOPE_ARCH): FORCE
	@mkdir -p $(@D); [ "$$(cat $@ 2>/dev/null)" = $(ARCH) ] || echo $(ARCH) > $@

ifeq ($(CROSS),)
permscope: $(OBJS) $(PERMSCOPE_ARCH) | check-tools
	$(CC) $(PS_CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)
else
# A cross build links OUT/permscope, beside its objects, and ./permscope is
# a copy: `make ARCH=arm64 && file permscope` says aarch64, and
# tools/vm/mkinitramfs finds the arm64 program in build/arm64 whatever
# ./permscope is now.  Everything compiled for ARCH waits for the sysroot
# and for check-tools (which names a missing cross compiler).
$(OUT)/permscope: $(OBJS) | check-tools
	$(CC) $(PS_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

permscope: $(OUT)/permscope $(PERMSCOPE_ARCH)
	cp $< $@

$(OBJS) $(OUT)/tests/workload: | check-tools $(SYSROOT_STAMP)
endif

# The sysroot of a cross build: the -dev packages of BUILD_PKGS and
# libc6-dev for ARCH with everything they depend on (tools/cross-sysroot
# says how; README, "Building for arm64", why).  Made once: its stamp holds
# the list of packages, and it is made again when the list gains one, not
# when the script or this file changes (`rm -rf build/sysroot/ARCH` for
# that; the .debs stay in SYSROOT.apt).  `make sysroot ARCH=arm64` makes
# it alone.
$(SYSROOT_STAMP): $(if $(filter-out $(file <$(SYSROOT_STAMP)),$(SYSROOT_PKGS)),FORCE)
	tools/cross-sysroot $(DEB_ARCH) $(SYSROOT) $(SYSROOT_PKGS)
	echo $(SYSROOT_PKGS) > $@

.PHONY: sysroot
sysroot: $(SYSROOT_STAMP)

# The bpf headers are named too: the .d file that lists them goes with a
# deleted .bpf.o, and the skeleton must still follow a changed header.
$(OUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) vmlinux/$(ARCH)/vmlinux.h | $(OUT) check-tools
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@
	$(LLVM_STRIP) -g $@ # DWARF is not needed at run time; BTF stays

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(SKEL_OBJS): $(SKELS)

# One rule compiles src/ into each build: OUT (the program and the tests),
# OUT/asan (make sanitize-test) and OUT/fuzz (the fuzz targets, clang), the
# folders of src/ made under it as they are met.
define object_rule
$(1)/%.o: src/%.c
	@mkdir -p $$(@D)
	$(2) $$(DEPFLAGS) -c $$< -o $$@
endef
$(eval $(call object_rule,$(OUT),$$(CC) $$(PS_CFLAGS)))
$(eval $(call object_rule,$(ASAN_OUT),$$(CC) $$(PS_CFLAGS) $$(SAN_FLAGS)))
$(eval $(call object_rule,$(FUZZ_OUT),$$(CLANG) $$(FUZZ_CFLAGS)))

# OUT/gitversion.h: this build's version and revision from git describe.
# Its recipe runs on every make but rewrites the file only when its text
# changes (a commit, a change of the dirty state), so that only version.o
# recompiles then, and nothing at all otherwise.
$(OUT)/gitversion.h: FORCE | $(OUT)
	@tools/gen-version $(VERSION) $@

$(OUT)/version.o: $(OUT)/gitversion.h

.PHONY: FORCE
FORCE:

$(OUT) $(OUT)/tests:
	@mkdir -p $@

# vmlinux.h and, beside it, SOURCE: which kernel and bpftool it came from
# and its checksum, so a reader can tell what the CO-RE types were taken
# from and whether the header was changed since.
VMLINUX_DIR := vmlinux/$(ARCH)
vmlinux: | check-tools
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX_DIR)/vmlinux.h.tmp
	{ echo "# Where vmlinux.h came from; written by 'make vmlinux' with it."; \
	  echo "release: $$(uname -r)"; \
	  echo "build: $$(uname -v)"; \
	  echo "machine: $$(uname -m)"; \
	  echo "btf: /sys/kernel/btf/vmlinux"; \
	  echo "bpftool: $$($(BPFTOOL) version | head -n 1)"; \
	  echo "generated: $$(date -u +%Y-%m-%dT%H:%M:%SZ)"; \
	  echo "sha256: $$(sha256sum < $(VMLINUX_DIR)/vmlinux.h.tmp | cut -d' ' -f1)"; \
	} > $(VMLINUX_DIR)/SOURCE.tmp
	mv $(VMLINUX_DIR)/vmlinux.h.tmp $(VMLINUX_DIR)/vmlinux.h
	mv $(VMLINUX_DIR)/SOURCE.tmp $(VMLINUX_DIR)/SOURCE
