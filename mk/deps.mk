# mk/deps.mk: the Debian packages each job needs, installed when missing.
# Included by the Makefile, whose variables it uses (make help lists the targets).

# Installs only what is missing; never touches apt sources.
install_missing = @missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "Error: missing packages:" $$missing "(run 'make deps' as root)" >&2; exit 1; fi; \
		echo "Installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# With ARCH=arm64 on another machine, the cross compiler too (CROSS_PKGS);
# the sysroot is made by the build itself, as a user (mk/build.mk).
deps:
	$(call install_missing,$(strip $(BUILD_PKGS) $(CROSS_PKGS)))

test-deps:
	$(call install_missing,$(BUILD_PKGS) $(TEST_PKGS) $(PKG_PKGS))

# The VM and the kernel build alone, for tools/permscope-ab: no Chromium,
# no Prometheus.  test-deps is their union with the tests' own (the kernel
# build aside: make test builds no kernel).
vm-deps:
	$(call install_missing,$(BUILD_PKGS) $(VM_PKGS))

kernel-deps:
	$(call install_missing,$(KERNEL_BUILD_PKGS))

check-tools:
	@for t in $(CLANG) $(BPFTOOL) $(CC); do command -v $$t >/dev/null || \
		{ echo "Error: $$t not found (run 'make deps$(if $(CROSS), ARCH=$(ARCH))' as root)" >&2; exit 1; }; done
