#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

// The only header Swift sees of libcurl. curl_easy_setopt and curl_easy_getinfo are
// variadic, which Swift cannot call: these typed wrappers are the whole surface that
// OpenEventKit's HTTPFunnel (Sources/OpenEventKit/Remote/HTTPFunnel.swift) uses.
#include <curl/curl.h>

typedef size_t (*CCurl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode CCurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_setopt_callback(CURL *handle, CURLoption option, CCurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode CCurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
