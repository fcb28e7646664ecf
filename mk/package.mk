# mk/package.mk: make install, uninstall, deb (README, "Installing"), clean.
# Included by the Makefile, whose variables it uses (make help lists the targets).

# ---- Installing: make install, make deb (README, "Installing") -----------
#
# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the man pages
# (docs/man/*.8), the bash completion, the systemd unit with the binary's
# path rewritten, /etc/default/permscope (never overwritten: it is the
# admin's), the docs and example files.  Nothing else on the system is
# touched: no daemon-reload, no enabling.  The unit and the defaults file go
# where systemd and the unit look for them whatever PREFIX is: /etc/default
# always (the unit's EnvironmentFile=), /lib/systemd/system for PREFIX=/usr
# (Debian 12 keeps units there), PREFIX/lib/systemd/system otherwise
# (/usr/local/lib/systemd/system is on systemd's search path).
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/permscope
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR  ?= /etc
UNITDIR     ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
MAN8        := $(wildcard docs/man/*.8)
COMPLETION  := $(wildcard contrib/bash-completion/permscope)
# Docs keep the tree's layout (README.md beside docs/) so that the README's
# links to docs/NAME.md still lead somewhere.
DOCS        := $(wildcard docs/*.md)
# and the screenshots the HTML pages' docs link to
DOC_IMAGES  := $(wildcard docs/images/*.png)
# contrib/examples/* go into examples/; contrib/prometheus/ (rules and their
# promtool tests) and contrib/grafana/ (the dashboard) keep their names and
# layout under it.
EXAMPLES    := $(wildcard contrib/examples/*)
EXAMPLE_TREES := $(shell find contrib/prometheus contrib/grafana -type f 2>/dev/null | sort)

.PHONY: install uninstall deb

install: permscope
	install -D -m 0755 permscope $(DESTDIR)$(BINDIR)/permscope
	$(if $(MAN8),install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man8 $(MAN8))
	$(if $(COMPLETION),install -D -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/permscope)
	install -d -m 0755 $(DESTDIR)$(UNITDIR)
	sed -e 's|/usr/bin/permscope|$(BINDIR)/permscope|g' \
	    -e 's|/etc/default/permscope|$(SYSCONFDIR)/default/permscope|g' \
	    -e 's|/usr/share/doc/permscope|$(DOCDIR)|g' \
		contrib/permscope.service > $(DESTDIR)$(UNITDIR)/permscope.service.tmp
	chmod 0644 $(DESTDIR)$(UNITDIR)/permscope.service.tmp
	mv $(DESTDIR)$(UNITDIR)/permscope.service.tmp $(DESTDIR)$(UNITDIR)/permscope.service
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/default/permscope ]; then \
		echo "kept $(DESTDIR)$(SYSCONFDIR)/default/permscope (contrib/permscope.default is the new one)"; \
	else echo "install -D -m 0644 contrib/permscope.default $(DESTDIR)$(SYSCONFDIR)/default/permscope"; \
		install -D -m 0644 contrib/permscope.default $(DESTDIR)$(SYSCONFDIR)/default/permscope; fi
	install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/docs $(DOCS)
	$(if $(DOC_IMAGES),install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/docs/images $(DOC_IMAGES))
	$(if $(EXAMPLES),install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/examples $(EXAMPLES))
	@for f in $(EXAMPLE_TREES); do echo "install -D -m 0644 $$f $(DESTDIR)$(DOCDIR)/examples/$${f#contrib/}"; \
		install -D -m 0644 $$f $(DESTDIR)$(DOCDIR)/examples/$${f#contrib/} || exit 1; done

# Removes what install wrote, and the defaults file only when it is still
# the one shipped (an edited one is the admin's and stays).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/permscope $(DESTDIR)$(UNITDIR)/permscope.service \
		$(DESTDIR)$(BASHCOMPDIR)/permscope $(MAN8:docs/man/%=$(DESTDIR)$(MANDIR)/man8/%)
	rm -rf $(DESTDIR)$(DOCDIR)
	@f=$(DESTDIR)$(SYSCONFDIR)/default/permscope; if [ -e $$f ]; then \
		if cmp -s contrib/permscope.default $$f; then echo "rm -f $$f"; rm -f $$f; \
		else echo "kept $$f: it was edited"; fi; fi

# make deb: the Debian package of this tree (debian/; README, "Installing"),
# as OUT/permscope_VERSION_ARCH.deb, then lintian on it (errors fail).  It is
# built in OUT/deb/src, so that neither the tree's own build/ nor
# dh_auto_clean's `make clean` meets the checkout: a clone of this commit
# (--shared: no objects copied) with the work tree's files over it (the ones
# git tracks, and new ones it does not ignore, as they are now), so that
# git describe there says what it says here, -dirty included, and the
# package's binary names its commit.  Without git: the tree minus OUT and
# build/.  OUT and MAKEFLAGS stay out of the package build: there, build/
# is the export's own.  Build-Depends missing here are installed as
# dpkg-checkbuilddeps names them (test_install holds BUILD_PKGS to them).
#
# make deb ARCH=arm64 on another machine cross-builds the arm64 package,
# OUT/permscope_VERSION_arm64.deb (OUT is build/arm64): dpkg-buildpackage
# -a arm64 with the cross compiler as CC, Debian's cross profile and no
# tests (-Pcross,nocheck, and nocheck in DEB_BUILD_OPTIONS: dh wants both;
# the tests are this machine's anyway); debian/rules passes the
# architecture on to make.  The arm64 Build-Depends are no packages of this
# system but the sysroot's, whose path goes in as SYSROOT (the export's
# build/ has none): -d leaves them unchecked, and debian/rules has
# dpkg-shlibdeps read the sysroot's shlibs for the Depends.
DEB_FILE  = $(OUT)/permscope_$(VERSION)_$(DEB_ARCH).deb
ifneq ($(CROSS),)
DEB_CROSS_ENV  = CC=$(CC) SYSROOT=$(abspath $(SYSROOT)) DEB_BUILD_OPTIONS="$(strip nocheck $(DEB_BUILD_OPTIONS))"
DEB_CROSS_OPTS = -a$(DEB_ARCH) -Pcross,nocheck -d
endif
deb: $(if $(CROSS),$(SYSROOT_STAMP))
	$(call install_missing,$(strip $(BUILD_PKGS) $(PKG_PKGS) $(CROSS_PKGS)))
	@missing=$$(dpkg-checkbuilddeps 2>&1 | sed -n 's/.*Unmet build dependencies: //p' | \
		sed -E 's/ *\([^)]*\)//g'); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "Error: missing build dependencies:" $$missing \
			"(run 'make deb' as root, or apt-get install them)" >&2; exit 1; fi; \
		echo "Installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $$missing >/dev/null; \
	fi
	@v=$$(dpkg-parsechangelog -l debian/changelog -S Version); [ "$$v" = "$(VERSION)" ] || \
		{ echo "Error: debian/changelog is at $$v, the Makefile at $(VERSION): add an entry" \
			"(dch -v $(VERSION))" >&2; exit 1; }
	rm -rf $(OUT)/deb && mkdir -p $(OUT)/deb
	@if git rev-parse --verify -q HEAD >/dev/null 2>&1; then \
		git clone -q --shared --no-checkout . $(OUT)/deb/src && \
		git ls-files -z --cached --others --exclude-standard | \
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null | \
			tar -C $(OUT)/deb/src -xf - && \
		git -C $(OUT)/deb/src reset -q; \
	else mkdir $(OUT)/deb/src && \
		tar --exclude=./$(OUT) --exclude=./build --exclude=./permscope -cf - . | \
			tar -C $(OUT)/deb/src -xf -; fi
	cd $(OUT)/deb/src && env -u OUT -u MAKEFLAGS -u MAKELEVEL -u MFLAGS $(DEB_CROSS_ENV) \
		dpkg-buildpackage -b -us -uc -Jauto $(DEB_CROSS_OPTS)
	mv $(OUT)/deb/permscope_$(VERSION)_$(DEB_ARCH).deb $(DEB_FILE)
	@ls -l $(DEB_FILE)
	lintian --fail-on error $(DEB_FILE)

clean:
	rm -rf $(OUT) permscope
