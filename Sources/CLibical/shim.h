#ifndef CLIBICAL_SHIM_H
#define CLIBICAL_SHIM_H

// The only header Swift sees of libical. Its types come from
// <libical/ical.h>; its functions are not linked but loaded with dlopen by the first call
// through ICalKit's funnel (Sources/ICalKit/Internals/Libical.swift). libical brings ICU,
// whose mapping and symbol relocation (with libxml2's, see CLibxml2) were a third of every
// `ical` process's start (`ical --version` 8.1 -> 5.5 ms); a warm store query never needs
// libical, so it no longer pays for it.
// Calling a libical function by name from Swift fails to link: go through the table.
#include <libical/ical.h>
#include "../DynamicLoading/dynamic_loading.h"

/// The libical functions ICalKit calls, resolved from the loaded library. Each field has
/// the type of the function it names, taken from libical's own declaration.
typedef struct CLibical_library {
    __typeof__(icalerror_set_errors_are_fatal) *_Nonnull error_set_errors_are_fatal;
    __typeof__(icaltimezone_get_builtin_timezones) *_Nonnull timezone_get_builtin_timezones;
    __typeof__(icalrecurrencetype_from_string) *_Nonnull recurrencetype_from_string;
    __typeof__(icalrecurrencetype_rscale_supported_calendars) *_Nonnull recurrencetype_rscale_supported_calendars;
    __typeof__(icalarray_element_at) *_Nonnull array_element_at;
    __typeof__(icalarray_free) *_Nonnull array_free;
    __typeof__(icalrecur_iterator_new) *_Nonnull recur_iterator_new;
    __typeof__(icalrecur_iterator_set_start) *_Nonnull recur_iterator_set_start;
    __typeof__(icalrecur_iterator_next) *_Nonnull recur_iterator_next;
    __typeof__(icalrecur_iterator_free) *_Nonnull recur_iterator_free;
    __typeof__(icalmemory_free_buffer) *_Nonnull memory_free_buffer;
    __typeof__(icaltime_is_null_time) *_Nonnull time_is_null_time;
} CLibical_library;

/// Loads libical 3 (Debian's libical3: libical.so.3) and resolves its functions into
/// `library`; 0 on success, else -1 with `error` holding dlerror's text (at most `size`
/// bytes, NUL-terminated) and `library` untouched. Not thread-safe: ICalKit calls it once,
/// under its lock.
static inline int CLibical_load(CLibical_library *_Nonnull library, char *_Nonnull error, size_t size) {
    void *handle = OpenEventKit_open("libical.so.3", "libical.3.dylib");  // the headers' major version
    void *opened = handle;
    CLibical_library loaded;
#define CLIBICAL_RESOLVE(field, symbol) OPENEVENTKIT_RESOLVE(handle, loaded, field, symbol)
    CLIBICAL_RESOLVE(error_set_errors_are_fatal, "icalerror_set_errors_are_fatal")
    CLIBICAL_RESOLVE(timezone_get_builtin_timezones, "icaltimezone_get_builtin_timezones")
    CLIBICAL_RESOLVE(recurrencetype_from_string, "icalrecurrencetype_from_string")
    CLIBICAL_RESOLVE(recurrencetype_rscale_supported_calendars, "icalrecurrencetype_rscale_supported_calendars")
    CLIBICAL_RESOLVE(array_element_at, "icalarray_element_at")
    CLIBICAL_RESOLVE(array_free, "icalarray_free")
    CLIBICAL_RESOLVE(recur_iterator_new, "icalrecur_iterator_new")
    CLIBICAL_RESOLVE(recur_iterator_set_start, "icalrecur_iterator_set_start")
    CLIBICAL_RESOLVE(recur_iterator_next, "icalrecur_iterator_next")
    CLIBICAL_RESOLVE(recur_iterator_free, "icalrecur_iterator_free")
    CLIBICAL_RESOLVE(memory_free_buffer, "icalmemory_free_buffer")
    CLIBICAL_RESOLVE(time_is_null_time, "icaltime_is_null_time")
#undef CLIBICAL_RESOLVE
    if (OpenEventKit_finish_load(handle, opened, error, size) != 0) return -1;
    *library = loaded;
    return 0;
}

#endif
