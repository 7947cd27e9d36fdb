#include <curl/curl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <string.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these
// fixed-type wrappers are the only way Hosted sets options or reads results.

static inline CURLcode hosted_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode hosted_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode hosted_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode hosted_curl_set_slist(CURL *curl, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(curl, option, value);
}

typedef size_t (*hosted_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode hosted_curl_set_write(CURL *curl, hosted_curl_data_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(curl, CURLOPT_WRITEDATA, context);
}

static inline CURLcode hosted_curl_set_header(CURL *curl, hosted_curl_data_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(curl, CURLOPT_HEADERDATA, context);
}

typedef curl_socket_t (*hosted_curl_open_socket_callback)(void *context, curlsocktype purpose, struct curl_sockaddr *address);

static inline CURLcode hosted_curl_set_open_socket(CURL *curl, hosted_curl_open_socket_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, context);
}

typedef int (*hosted_curl_debug_callback)(CURL *curl, curl_infotype type, char *data, size_t size, void *context);

/// What curl sends and receives, for tests that check a request's headers (the S3 client's
/// signature cross-check); turns CURLOPT_VERBOSE on, which only calls `callback`.
static inline CURLcode hosted_curl_set_debug(CURL *curl, hosted_curl_debug_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_DEBUGFUNCTION, callback);
    if (code == CURLE_OK) code = curl_easy_setopt(curl, CURLOPT_DEBUGDATA, context);
    return code != CURLE_OK ? code : curl_easy_setopt(curl, CURLOPT_VERBOSE, 1L);
}

static inline long hosted_curl_response_code(CURL *curl) {
    long code = 0;
    if (curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK) return 0;
    return code;
}

/// The bytes of the address curl is about to connect to: 4 (IPv4) or 16 (IPv6) into `out`;
/// returns the count, 0 for another family.
static inline int hosted_curl_address_bytes(const struct curl_sockaddr *address, unsigned char *out) {
    if (address->family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&address->addr;
        memcpy(out, &in->sin_addr, 4);
        return 4;
    }
    if (address->family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&address->addr;
        memcpy(out, &in6->sin6_addr, 16);
        return 16;
    }
    return 0;
}
