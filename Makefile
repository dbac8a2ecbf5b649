# OpenEventKit
#
#   make demo         install what is missing, build, run `ical` on the sample calendars
#   make test         install what is missing, build, run every test, then the samples (what CI runs)
#   make samples      build and run the sample apps (samples/) against a temporary store, check their output
#   make deps         install libical-dev, libsqlite3-dev, libcurl4-openssl-dev, libxml2, tzdata and pkg-config when missing (apt-get, retried once)
#                     (make test also installs chromium and python3, for the printable view's browser test,
#                     dunst, xvfb, dbus-daemon and dbus-bin, for the desktop notification tests, and
#                     cyrus-imapd, cyrus-caldav and sasl2-bin, for the CalDAV scheduling server the tests start)
#   make build        debug build
#   make release      the shipped ical: release, Swift runtime linked in (scripts/release-flags.sh)
#   make bench        benchmarks against raw libical and the Python peers (ratios in one run), and the
#                     scale table at 10^4, 10^5 and 10^6 events (Benchmarks/scale.sh; BENCH_SCALE=0 skips it)
#   make fuzz         libFuzzer over the reader and writer (FUZZ_SECONDS, default 600)
#   make conformance  differential recurrence tests against Python and Foundation (needs PyPI)
#   make docs         DocC catalogs
#   make install      the release build, stripped, with its manual pages, completions and systemd user
#                     units, into $(DESTDIR)$(PREFIX) (PREFIX=/usr/local); ICAL_BIN=FILE installs that
#                     binary instead of building one
#   make uninstall    remove exactly the files make install writes
#   make dist         openeventkit-VERSION-linux-ARCH.tar.gz: the same files, LICENSE, README, CHANGELOG
#   make dist-check   unpack that tarball and run its ical on the samples with the Swift toolchain hidden
#   make clean        remove build products

SWIFT ?= swift
SWIFT_FLAGS ?=
FUZZ_SECONDS ?= 600
PREFIX ?= /usr/local
DESTDIR ?=
ICAL_BIN ?=
# The version `ical --version` prints, from the one place it is written.
VERSION := $(shell sed -n 's/^let icalVersion = "\(.*\)"$$/\1/p' Sources/ical/Version.swift)
ARCH := $(shell uname -m)
DIST := openeventkit-$(VERSION)-linux-$(ARCH).tar.gz

.PHONY: default demo test samples deps build release bench fuzz conformance docs clean \
	install uninstall dist dist-check version

default: test

deps:
	@sh scripts/deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

# The flags of the shipped binary (scripts/release-flags.sh; the benchmarks use the same).
RELEASE_FLAGS = $(shell . scripts/release-flags.sh && echo "$$ICAL_RELEASE_FLAGS")

release: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS)

test: deps
	@sh scripts/deps.sh chromium python3 dunst Xvfb:xvfb dbus-daemon:dbus-daemon dbus-send:dbus-bin \
		/usr/sbin/cyrmaster:cyrus-common /usr/lib/cyrus/bin/imapd:cyrus-imapd \
		/usr/lib/cyrus/bin/httpd:cyrus-caldav /usr/sbin/saslpasswd2:sasl2-bin
	TZ=UTC LC_ALL=C.UTF-8 $(SWIFT) test $(SWIFT_FLAGS)
	@sh scripts/samples.sh

samples: deps
	@sh scripts/samples.sh

demo: deps
	@sh scripts/demo.sh

bench: deps
	@sh Benchmarks/run.sh

fuzz: deps
	@sh scripts/fuzz.sh $(FUZZ_SECONDS)

conformance: deps
	@sh scripts/conformance.sh

docs: deps
	@sh scripts/docs.sh

# install and dist take the release build unless ICAL_BIN names a binary.
install:
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" sh scripts/install.sh check install
ifeq ($(ICAL_BIN),)
	@$(MAKE) --no-print-directory release
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" SWIFT="$(SWIFT)" sh scripts/install.sh install .build/release/ical
else
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" SWIFT="$(SWIFT)" sh scripts/install.sh install "$(ICAL_BIN)"
endif

uninstall:
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" sh scripts/install.sh uninstall

dist:
ifeq ($(ICAL_BIN),)
	@$(MAKE) --no-print-directory release
	@SWIFT="$(SWIFT)" sh scripts/dist.sh .build/release/ical $(DIST)
else
	@SWIFT="$(SWIFT)" sh scripts/dist.sh "$(ICAL_BIN)" $(DIST)
endif

dist-check:
	@sh scripts/dist-check.sh $(DIST)

version:
	@echo $(VERSION)

clean:
	rm -rf .build .build-* Benchmarks/.build Benchmarks/work openeventkit-*-linux-*.tar.gz
