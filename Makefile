# OpenEventKit
#
#   make demo         install what is missing, build, run `ical` on the sample calendars
#   make test         install what is missing, build, run every test, then the samples (what CI runs)
#   make samples      build and run the sample apps (samples/) against a temporary store, check their output
#   make deps         install libical-dev, libsqlite3-dev, libcurl4-openssl-dev, libxml2, tzdata and pkg-config when missing (apt-get, retried once)
#                     (make test also installs chromium and python3, for the printable view's browser test)
#   make build        debug build
#   make release      the shipped ical: release, Swift runtime linked in (scripts/release-flags.sh)
#   make bench        benchmarks against raw libical and the Python peers (ratios in one run)
#   make fuzz         libFuzzer over the reader and writer (FUZZ_SECONDS, default 600)
#   make conformance  differential recurrence tests against Python and Foundation (needs PyPI)
#   make docs         DocC catalogs
#   make clean        remove build products

SWIFT ?= swift
SWIFT_FLAGS ?=
FUZZ_SECONDS ?= 600

.PHONY: default demo test samples deps build release bench fuzz conformance docs clean

default: test

deps:
	@sh scripts/deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

# The flags of the shipped binary (scripts/release-flags.sh; the benchmarks use the same).
RELEASE_FLAGS := $(shell . scripts/release-flags.sh && echo "$$ICAL_RELEASE_FLAGS")

release: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS)

test: deps
	@sh scripts/deps.sh chromium python3
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

clean:
	rm -rf .build .build-* Benchmarks/.build Benchmarks/work
