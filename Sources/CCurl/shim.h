#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

// The only header Swift sees of libcurl. libcurl is loaded with dlopen when the first HTTP
// request is made, not linked: its chain of libraries (TLS, Kerberos, LDAP, SSH, HTTP/2:
// about thirty) would otherwise be loaded and relocated by every `ical` process, offline
// queries included. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call: these typed wrappers are the whole surface that OpenEventKit's HTTPFunnel
// (Sources/OpenEventKit/Remote/HTTPFunnel.swift) uses.
#include <curl/curl.h>
#include "../DynamicLoading/dynamic_loading.h"
#include <stddef.h>

typedef size_t (*CCurl_data_callback)(char *data, size_t size, size_t count, void *context);
/// CURLOPT_XFERINFOFUNCTION's callback: called often during a transfer and about once a
/// second while nothing moves; a non-zero return ends the transfer.
typedef int (*CCurl_progress_callback)(void *context, curl_off_t downloadTotal, curl_off_t downloaded,
                                       curl_off_t uploadTotal, curl_off_t uploaded);

/// The libcurl functions HTTPFunnel calls, resolved from the loaded library.
typedef struct CCurl_library {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    void (*easy_reset)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
} CCurl_library;

/// Loads libcurl (Debian's libcurl4: libcurl.so.4) and resolves its functions; 0 on success,
/// else -1 with `error` holding dlerror's text (at most `size` bytes, NUL-terminated).
/// Not thread-safe: call it once (HTTPFunnel does, from a global's initialiser).
static inline int CCurl_load(CCurl_library *library, char *error, size_t size) {
    const char *names[] = { "libcurl.so.4", "libcurl.so" };
    void *handle = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && handle == NULL; i++) {
        handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    void *loaded = handle;
    CCurl_library resolved;
#define CCURL_RESOLVE(field, symbol) OPENEVENTKIT_RESOLVE(handle, resolved, field, symbol)
    CCURL_RESOLVE(global_init, "curl_global_init")
    CCURL_RESOLVE(easy_init, "curl_easy_init")
    CCURL_RESOLVE(easy_cleanup, "curl_easy_cleanup")
    CCURL_RESOLVE(easy_reset, "curl_easy_reset")
    CCURL_RESOLVE(easy_perform, "curl_easy_perform")
    CCURL_RESOLVE(easy_setopt, "curl_easy_setopt")
    CCURL_RESOLVE(easy_getinfo, "curl_easy_getinfo")
    CCURL_RESOLVE(easy_strerror, "curl_easy_strerror")
    CCURL_RESOLVE(slist_append, "curl_slist_append")
    CCURL_RESOLVE(slist_free_all, "curl_slist_free_all")
#undef CCURL_RESOLVE
    if (OpenEventKit_finish_load(handle, loaded, error, size) != 0) return -1;
    *library = resolved;
    return 0;
}

static inline CURLcode CCurl_setopt_long(const CCurl_library *library, CURL *handle, CURLoption option, long value) {
    return library->easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_offset(const CCurl_library *library, CURL *handle, CURLoption option, curl_off_t value) {
    return library->easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_string(const CCurl_library *library, CURL *handle, CURLoption option, const char *value) {
    return library->easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_pointer(const CCurl_library *library, CURL *handle, CURLoption option, void *value) {
    return library->easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_list(const CCurl_library *library, CURL *handle, CURLoption option, struct curl_slist *value) {
    return library->easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_callback(const CCurl_library *library, CURL *handle, CURLoption option, CCurl_data_callback value) {
    return library->easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_progress(const CCurl_library *library, CURL *handle, CURLoption option, CCurl_progress_callback value) {
    return library->easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_getinfo_long(const CCurl_library *library, CURL *handle, CURLINFO info, long *value) {
    return library->easy_getinfo(handle, info, value);
}

#endif
