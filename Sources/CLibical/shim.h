#ifndef CLIBICAL_SHIM_H
#define CLIBICAL_SHIM_H

// The only header Swift sees. Everything libical exports is reached through
// ICalKit's internal funnel (Sources/ICalKit/Internals/Libical.swift).
#include <libical/ical.h>

/// icalerrno is a macro over a per-thread slot; Swift cannot read the macro.
static inline icalerrorenum CLibical_errno(void) {
    return *icalerrno_return();
}

/// Clears the per-thread error slot before a call whose errno we read afterwards.
static inline void CLibical_clear_errno(void) {
    *icalerrno_return() = ICAL_NO_ERROR;
}

#endif
