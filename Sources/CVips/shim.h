#include <vips/vips.h>
#include <string.h>
#include <malloc.h>

// libvips' operations take NULL-terminated variadic option lists, which Swift cannot call.
// These fixed-arity wrappers pass exactly the options Hosted uses.

/// Starts libvips once for the process: only the audited loaders (JPEG and PNG among them;
/// `vips_block_untrusted_set` blocks the rest), one thread per operation (the HTTP worker is
/// the unit of concurrency), no operation cache (every upload is new). 0 on success.
static inline int hosted_vips_start(void) {
    if (VIPS_INIT("hosted")) return -1;
    vips_block_untrusted_set(TRUE);
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    return 0;
}

/// The name of the loader libvips would pick for these bytes (e.g. "VipsForeignLoadJpegBuffer"),
/// or NULL.
static inline const char *hosted_vips_loader(const void *bytes, size_t length) {
    return vips_foreign_find_load_buffer(bytes, length);
}

/// Reads only the header (no pixels are decoded) and reports the dimensions. 0 on success.
static inline int hosted_vips_dimensions(const void *bytes, size_t length, int *width, int *height) {
    VipsImage *image = vips_image_new_from_buffer(bytes, length, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return -1;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    g_object_unref(image);
    return 0;
}

/// Decodes the image, applies its EXIF orientation and shrinks it to fit `max_edge` × `max_edge`
/// (never enlarges; JPEGs shrink while they load). `loader_options` is the loader's option string,
/// e.g. "fail_on=truncated" (truncated input is an error) or "fail_on=warning" (so is any damage
/// the decoder would paper over). NULL on error.
static inline VipsImage *hosted_vips_decode_oriented(const void *bytes, size_t length, int max_edge,
                                                     const char *loader_options) {
    VipsImage *out = NULL;
    if (vips_thumbnail_buffer((void *)bytes, length, &out, max_edge, "height", max_edge, "size", VIPS_SIZE_DOWN,
                              "option_string", loader_options, NULL)) return NULL;
    return out;
}

/// Flattens any alpha channel onto white. A new reference in *out; 0 on success.
static inline int hosted_vips_flatten_white(VipsImage *in, VipsImage **out) {
    if (!vips_image_hasalpha(in)) { g_object_ref(in); *out = in; return 0; }
    VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
    int result = vips_flatten(in, out, "background", white, NULL);
    vips_area_unref(VIPS_AREA(white));
    return result;
}

/// Converts to 8-bit sRGB. A new reference in *out; 0 on success.
static inline int hosted_vips_srgb8(VipsImage *in, VipsImage **out) {
    VipsImage *srgb = NULL;
    if (vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL)) return -1;
    int result = vips_cast(srgb, out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(srgb);
    return result;
}

/// Encodes a baseline JPEG with no metadata at all (EXIF, XMP, ICC, thumbnails stripped). The
/// buffer is g_malloc'ed: free it with hosted_vips_free. 0 on success.
static inline int hosted_vips_jpeg(VipsImage *in, int quality, void **bytes, size_t *length) {
    return vips_jpegsave_buffer(in, bytes, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

static inline int hosted_vips_width(VipsImage *image) { return vips_image_get_width(image); }
static inline int hosted_vips_height(VipsImage *image) { return vips_image_get_height(image); }
static inline void hosted_vips_unref(VipsImage *image) { if (image) g_object_unref(image); }
static inline void hosted_vips_free(void *bytes) { g_free(bytes); }

/// Copies libvips' error text for this thread into `buffer` and clears it.
static inline void hosted_vips_take_error(char *buffer, size_t size) {
    const char *text = vips_error_buffer();
    if (size) { strncpy(buffer, text ? text : "", size - 1); buffer[size - 1] = 0; }
    vips_error_clear();
}

/// Routes libvips' GLib warnings to `handler` instead of stderr.
static inline void hosted_vips_log_to(GLogFunc handler) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG, handler, NULL);
}

/// Gives the pages glibc's allocator holds free (in every arena) back to the system: a decode
/// allocates and frees tens of megabytes, which glibc would otherwise keep for the thread's
/// arena, leaving the process as large as its largest decode.
static inline void hosted_release_free_memory(void) { (void)malloc_trim(0); }

/// At most `count` glibc arenas (its default is eight per core): each thread that finds the
/// arenas busy makes one more, and a decode's tens of megabytes freed in one of many arenas stay
/// fragmented there, so the process stays as large as its busiest moment.
static inline void hosted_limit_malloc_arenas(int count) { (void)mallopt(M_ARENA_MAX, count); }

// --- Capture checks: measures of a stored photo (see HostedImaging/VipsPhotoMeasurer) ---------

/// Loads `bytes` (a JPEG or PNG) shrunk to fit `max_edge` × `max_edge` (JPEGs shrink while they
/// load) as one band of 8-bit grey, held in memory (at most max_edge² bytes). NULL on error.
static inline VipsImage *hosted_vips_grey_thumbnail(const void *bytes, size_t length, int max_edge) {
    VipsImage *thumb = NULL, *grey = NULL, *band = NULL, *out = NULL;
    if (vips_thumbnail_buffer((void *)bytes, length, &thumb, max_edge, "height", max_edge, "size", VIPS_SIZE_DOWN, NULL))
        return NULL;
    int failed = vips_colourspace(thumb, &grey, VIPS_INTERPRETATION_B_W, NULL);
    g_object_unref(thumb);
    if (failed) return NULL;
    failed = vips_extract_band(grey, &band, 0, NULL);  /* an alpha band, if any, goes */
    g_object_unref(grey);
    if (failed) return NULL;
    failed = vips_cast(band, &out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(band);
    if (failed) return NULL;
    /* The thumbnail reads its source once, in order; the measures read the copy several times. */
    VipsImage *memory = vips_image_copy_memory(out);
    g_object_unref(out);
    return memory;
}

/// The mean of every pixel of `in`. 0 on success.
static inline int hosted_vips_mean(VipsImage *in, double *mean) { return vips_avg(in, mean, NULL); }

/// The fraction (0...1) of the pixels of a one-band image at or above `level`. 0 on success.
static inline int hosted_vips_fraction_at_least(VipsImage *in, double level, double *fraction) {
    VipsImage *mask = NULL;
    if (vips_moreeq_const1(in, &mask, level, NULL)) return -1;  /* 255 where true, 0 elsewhere */
    double mean = 0;
    int failed = vips_avg(mask, &mean, NULL);
    g_object_unref(mask);
    *fraction = mean / 255.0;
    return failed;
}

/// The variance of the 3 × 3 Laplacian (0 1 0 / 1 -4 1 / 0 1 0) of a one-band image, computed in
/// floating point: low for a blurred photo, high for a sharp one. 0 on success.
static inline int hosted_vips_laplacian_variance(VipsImage *in, double *variance) {
    /* A standard deviation needs two samples (libvips answers NaN, and an error, for one). */
    if ((long)vips_image_get_width(in) * vips_image_get_height(in) < 2) { *variance = 0; return 0; }
    double coefficients[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    VipsImage *mask = vips_image_new_matrix_from_array(3, 3, coefficients, 9);
    if (!mask) return -1;
    VipsImage *real = NULL, *edges = NULL;
    int failed = vips_cast(in, &real, VIPS_FORMAT_FLOAT, NULL);
    if (!failed) failed = vips_conv(real, &edges, mask, "precision", VIPS_PRECISION_FLOAT, NULL);
    double deviation = 0;
    if (!failed) failed = vips_deviate(edges, &deviation, NULL);
    if (edges) g_object_unref(edges);
    if (real) g_object_unref(real);
    g_object_unref(mask);
    *variance = deviation * deviation;
    return failed;
}

/// `in` resized to exactly `width` × `height` (each side scaled on its own). A new reference in
/// *out; 0 on success.
static inline int hosted_vips_resize_exactly(VipsImage *in, int width, int height, VipsImage **out) {
    double hscale = (double)width / vips_image_get_width(in), vscale = (double)height / vips_image_get_height(in);
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}

/// The pixels of an 8-bit image, copied into a g_malloc'ed buffer (free with hosted_vips_free),
/// rows packed: width × height × bands bytes. NULL on error.
static inline void *hosted_vips_pixels(VipsImage *in, size_t *length) {
    return vips_image_write_to_memory(in, length);
}

/// Clears libvips' error text for this thread (a failure already reported another way).
static inline void hosted_vips_discard_error(void) { vips_error_clear(); }

// --- Account logos (see HostedImaging/VipsLogoNormalizer) -------------------------------------

/// Decodes the image, applies its EXIF orientation and shrinks it to fit `max_width` ×
/// `max_height` (never enlarges). `loader_options` as for hosted_vips_decode_oriented. NULL on error.
static inline VipsImage *hosted_vips_decode_fit(const void *bytes, size_t length, int max_width, int max_height,
                                                const char *loader_options) {
    VipsImage *out = NULL;
    if (vips_thumbnail_buffer((void *)bytes, length, &out, max_width, "height", max_height, "size", VIPS_SIZE_DOWN,
                              "option_string", loader_options, NULL)) return NULL;
    return out;
}

/// Encodes a PNG with no metadata at all (EXIF, XMP, ICC, text chunks stripped), alpha kept. The
/// buffer is g_malloc'ed: free it with hosted_vips_free. 0 on success.
static inline int hosted_vips_png(VipsImage *in, void **bytes, size_t *length) {
    return vips_pngsave_buffer(in, bytes, length, "strip", TRUE, "compression", 9, NULL);
}
