/// The version of OpenEventKit's `ical`, as `ical --version` prints it.
///
/// The one place it is written: the Makefile reads it from this line (`make dist` names the
/// tarball after it), and CHANGELOG.md has a section for it.
let icalVersion = "0.1.0"
