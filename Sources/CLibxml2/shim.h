#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H

// The only header Swift sees of libxml2, which reads WebDAV responses. libxml2 is loaded
// with dlopen when the first response is read, not linked (as FoundationXML's XMLParser
// would have it): Debian's libxml2 brings ICU, liblzma and zlib, whose relocation every
// `ical` process paid at start, offline queries included. Only libxml2's reader interface
// is used (xmlreader.h, stable since libxml2 2.5), declared here with opaque pointers, so
// building needs no libxml2 headers.
#include "../DynamicLoading/dynamic_loading.h"

typedef struct CLibxml2_reader CLibxml2_reader;  // xmlTextReader
typedef void (*CLibxml2_error_function)(void *arg, const char *message, int severity, void *locator);

/// The libxml2 functions DAVXML calls, resolved from the loaded library.
typedef struct CLibxml2_library {
    void (*_Nonnull init_parser)(void);
    CLibxml2_reader *_Nullable (*_Nonnull reader_for_memory)(const char *buffer, int size, const char *_Nullable url,
                                                             const char *_Nullable encoding, int options);
    int (*_Nonnull read)(CLibxml2_reader *reader);
    int (*_Nonnull node_type)(CLibxml2_reader *reader);
    int (*_Nonnull is_empty_element)(CLibxml2_reader *reader);
    const unsigned char *_Nullable (*_Nonnull const_local_name)(CLibxml2_reader *reader);
    const unsigned char *_Nullable (*_Nonnull const_namespace_uri)(CLibxml2_reader *reader);
    const unsigned char *_Nullable (*_Nonnull const_name)(CLibxml2_reader *reader);
    const unsigned char *_Nullable (*_Nonnull const_value)(CLibxml2_reader *reader);
    int (*_Nonnull move_to_next_attribute)(CLibxml2_reader *reader);
    int (*_Nonnull move_to_element)(CLibxml2_reader *reader);
    int (*_Nonnull parser_line_number)(CLibxml2_reader *reader);
    void (*_Nonnull set_error_handler)(CLibxml2_reader *reader, CLibxml2_error_function _Nullable handler, void *_Nullable arg);
    int (*_Nonnull locator_line_number)(void *locator);
    void (*_Nonnull free_reader)(CLibxml2_reader *reader);
} CLibxml2_library;

// libxml2's constants (parser.h, xmlreader.h).
enum {
    CLibxml2_parse_nonet = 1 << 11,          // XML_PARSE_NONET: no network access
    CLibxml2_parse_noerror = 1 << 5,         // XML_PARSE_NOERROR: no default error reports
    CLibxml2_parse_nowarning = 1 << 6,       // XML_PARSE_NOWARNING
    CLibxml2_severity_error = 4,             // XML_PARSER_SEVERITY_ERROR
    CLibxml2_type_element = 1,               // XML_READER_TYPE_ELEMENT
    CLibxml2_type_text = 3,
    CLibxml2_type_cdata = 4,
    CLibxml2_type_entity_reference = 5,
    CLibxml2_type_whitespace = 13,
    CLibxml2_type_significant_whitespace = 14,
    CLibxml2_type_end_element = 15,
};

/// Loads libxml2 (Debian's libxml2: libxml2.so.2), resolves its functions into `library`
/// and initialises the parser for use from any thread; 0 on success, else -1 with `error`
/// holding dlerror's text (at most `size` bytes, NUL-terminated). Not thread-safe: call it
/// once (DAVXML does, from a global's initialiser).
static inline int CLibxml2_load(CLibxml2_library *_Nonnull library, char *_Nonnull error, size_t size) {
    void *handle = OpenEventKit_open("libxml2.so.2", "libxml2.2.dylib");
    void *opened = handle;
    CLibxml2_library loaded;
#define CLIBXML2_RESOLVE(field, symbol) OPENEVENTKIT_RESOLVE(handle, loaded, field, symbol)
    CLIBXML2_RESOLVE(init_parser, "xmlInitParser")
    CLIBXML2_RESOLVE(reader_for_memory, "xmlReaderForMemory")
    CLIBXML2_RESOLVE(read, "xmlTextReaderRead")
    CLIBXML2_RESOLVE(node_type, "xmlTextReaderNodeType")
    CLIBXML2_RESOLVE(is_empty_element, "xmlTextReaderIsEmptyElement")
    CLIBXML2_RESOLVE(const_local_name, "xmlTextReaderConstLocalName")
    CLIBXML2_RESOLVE(const_namespace_uri, "xmlTextReaderConstNamespaceUri")
    CLIBXML2_RESOLVE(const_name, "xmlTextReaderConstName")
    CLIBXML2_RESOLVE(const_value, "xmlTextReaderConstValue")
    CLIBXML2_RESOLVE(move_to_next_attribute, "xmlTextReaderMoveToNextAttribute")
    CLIBXML2_RESOLVE(move_to_element, "xmlTextReaderMoveToElement")
    CLIBXML2_RESOLVE(parser_line_number, "xmlTextReaderGetParserLineNumber")
    CLIBXML2_RESOLVE(set_error_handler, "xmlTextReaderSetErrorHandler")
    CLIBXML2_RESOLVE(locator_line_number, "xmlTextReaderLocatorLineNumber")
    CLIBXML2_RESOLVE(free_reader, "xmlFreeTextReader")
#undef CLIBXML2_RESOLVE
    if (OpenEventKit_finish_load(handle, opened, error, size) != 0) return -1;
    loaded.init_parser();
    *library = loaded;
    return 0;
}

/// The first error a reader reported: libxml2's message and its line (0 when none).
typedef struct CLibxml2_errors {
    const CLibxml2_library *_Nonnull library;
    char message[256];
    int line;
} CLibxml2_errors;

/// No error yet, for a reader of `library`.
static inline CLibxml2_errors CLibxml2_no_errors(const CLibxml2_library *_Nonnull library) {
    CLibxml2_errors errors = { library, { 0 }, 0 };
    return errors;
}

static inline void CLibxml2_record_error(void *arg, const char *message, int severity, void *locator) {
    CLibxml2_errors *errors = (CLibxml2_errors *)arg;
    if (severity < CLibxml2_severity_error || errors->line != 0 || errors->message[0] != '\0') return;
    size_t i = 0;
    for (; message != NULL && message[i] != '\0' && i + 1 < sizeof errors->message; i++) errors->message[i] = message[i];
    errors->message[i] = '\0';
    errors->line = locator != NULL ? errors->library->locator_line_number(locator) : 0;
}

/// Sends `reader`'s errors to `errors` (nothing reaches standard error).
static inline void CLibxml2_capture_errors(CLibxml2_reader *_Nonnull reader, CLibxml2_errors *_Nonnull errors) {
    errors->library->set_error_handler(reader, CLibxml2_record_error, errors);
}

#endif
