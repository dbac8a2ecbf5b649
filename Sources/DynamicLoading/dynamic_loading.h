#ifndef OPENEVENTKIT_DYNAMIC_LOADING_H
#define OPENEVENTKIT_DYNAMIC_LOADING_H

// What the C modules that open a library with dlopen on first use share (CCurl, CDBus,
// CLibical, CLibxml2): opening by a versioned name, resolving a function into a table, and the end
// of a load. Included by their
// shim.h, not a module of its own.
#include <dlfcn.h>
#include <stddef.h>

/// Opens a library by its versioned name (`linux_name`, or `darwin_name` on Darwin), never
/// by an unversioned one, which may be a library of another ABI; NULL when it cannot.
static inline void *OpenEventKit_open(const char *linux_name, const char *darwin_name) {
#if defined(__APPLE__)
    (void)linux_name;
    return dlopen(darwin_name, RTLD_NOW | RTLD_LOCAL);
#else
    (void)darwin_name;
    return dlopen(linux_name, RTLD_NOW | RTLD_LOCAL);
#endif
}

/// Resolves `symbol` into `table.field`; when the library lacks it, `handle` becomes NULL and
/// the load fails.
#define OPENEVENTKIT_RESOLVE(handle, table, field, symbol) \
    if ((handle) != NULL && (*(void **)(&(table).field) = dlsym((handle), (symbol))) == NULL) (handle) = NULL;

/// Ends a load: 0 when `handle` is still open; else -1, with dlerror's text in `error` (at
/// most `size` bytes, NUL-terminated) and the library `opened` (if any) closed.
static inline int OpenEventKit_finish_load(void *handle, void *opened, char *error, size_t size) {
    if (handle != NULL) return 0;
    const char *text = dlerror();
    if (size > 0) {
        size_t i = 0;
        for (; text != NULL && text[i] != '\0' && i + 1 < size; i++) error[i] = text[i];
        error[i] = '\0';
    }
    if (opened != NULL) dlclose(opened);
    return -1;
}

#endif
