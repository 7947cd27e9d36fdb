// dlib's frontal-face detector behind a C function, so Swift sees plain values and nothing of
// C++ (templates, exceptions) crosses into it.
#include "face_detection.h"

#include <algorithm>
#include <vector>

#include <dlib/image_processing/frontal_face_detector.h>

extern "C" int hosted_detect_faces(const uint8_t *pixels, int width, int height, size_t stride,
                                   double minimum_score, hosted_face *faces, int capacity) {
    if (!pixels || width <= 0 || height <= 0 || stride < static_cast<size_t>(width) || capacity < 0
        || (capacity > 0 && !faces)) {
        return -1;
    }
    try {
        // The detector holds scratch state while it runs: one per thread. Its model is compiled
        // into libdlib, so building it reads no file.
        thread_local dlib::frontal_face_detector detector = dlib::get_frontal_face_detector();
        dlib::array2d<unsigned char> image(height, width);
        for (int row = 0; row < height; ++row) {
            const uint8_t *source = pixels + static_cast<size_t>(row) * stride;
            std::copy(source, source + width, &image[row][0]);
        }
        std::vector<dlib::rect_detection> found;
        // A negative adjustment reports detections below dlib's own threshold of 0 too, so the
        // caller's documented score decides.
        detector(image, found, std::min(minimum_score, 0.0));
        std::vector<dlib::rect_detection> kept;
        for (const auto &detection : found) {
            if (detection.detection_confidence >= minimum_score) kept.push_back(detection);
        }
        std::sort(kept.begin(), kept.end(), [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
            return a.detection_confidence > b.detection_confidence;
        });
        const int count = static_cast<int>(std::min<size_t>(kept.size(), 1 << 20));
        for (int index = 0; index < std::min(count, capacity); ++index) {
            const dlib::rectangle &box = kept[index].rect;
            faces[index] = hosted_face{static_cast<int32_t>(box.left()), static_cast<int32_t>(box.top()),
                                       static_cast<int32_t>(box.width()), static_cast<int32_t>(box.height()),
                                       kept[index].detection_confidence};
        }
        return count;
    } catch (...) {
        return -1;
    }
}
