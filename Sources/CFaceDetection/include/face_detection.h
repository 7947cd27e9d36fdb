#ifndef HOSTED_FACE_DETECTION_H
#define HOSTED_FACE_DETECTION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One face found by dlib's HOG frontal-face detector, in pixels of the image searched.
typedef struct {
    int32_t x, y, width, height;
    /// The detector's confidence: about 1.5 for a clear frontal face, near 0 for a false match.
    double score;
} hosted_face;

/// Finds frontal faces in an 8-bit grey image of `width` × `height` pixels, rows `stride` bytes
/// apart. Every detection scoring at least `minimum_score` is written to `faces` (at most
/// `capacity`, highest scores first). Returns how many were found (possibly more than
/// `capacity`), or -1 on bad arguments or any failure inside dlib (nothing is thrown across
/// this boundary). Safe to call from several threads at once.
int hosted_detect_faces(const uint8_t *pixels, int width, int height, size_t stride,
                        double minimum_score, hosted_face *faces, int capacity);

#ifdef __cplusplus
}
#endif

#endif
