# mk/build.mk: ./permscope, its BPF objects and skeletons, the version, vmlinux.h.
# Included by the Makefile, whose variables it uses (make help lists the targets).

permscope: $(OBJS) | check-tools
	$(CC) $(PS_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

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
