// SPDX-License-Identifier: MIT
// examples/precision_study/data.hpp — the data of the precision study: Fashion-MNIST read from
// its IDX files (gzip or raw), or a built-in synthetic task when no copy can be found.
//
// IDX files (http://yann.lecun.com/exdb/mnist/): a big-endian header — magic 0x00000803 and
// three dimensions (count, 28, 28) for images, magic 0x00000801 and one dimension (count) for
// labels — then the bytes. In a directory the reader looks for
//   train-images-idx3-ubyte  train-labels-idx1-ubyte  t10k-images-idx3-ubyte  t10k-labels-idx1-ubyte
// each as NAME.gz or NAME. With zlib (MIXPREC_STUDY_HAVE_ZLIB) both kinds are read through gzread,
// which passes raw files through; without it the raw files are preferred and a gzip file is
// refused (gzip_unavailable) with a message saying so. The header is read first, then at most the
// payload it announces and one byte more: memory follows the header's claim (at most
// max_idx_items = 2^20 images or labels), never the size of a decompressed stream. A bad magic
// number, a wrong image size, a count above that cap or that disagrees between images and labels,
// a label outside 0..9, a short (truncated) file, bytes after the data, or a gzip stream that does
// not decode throw study_error naming the file and the problem.
//
// The synthetic task (used when no data is found, or with --data synthetic): ten classes of
// 28x28 images in [0, 1]. Each class has a "prototype" made of Gaussian blobs: three families of
// classes (0/3/6/9, 1/4/7, 2/5/8) share two large blobs, and each class adds two or three small
// ones of its own. A sample is its prototype shifted by up to 2 pixels, with a random contrast
// (0.6..1.1), blended with up to 0.6 of another class's prototype, plus noise (standard deviation
// 0.15), clipped to [0, 1] and quantized to bytes like the real data. 60000 training and 10000 test
// images from fixed seeds (SplitMix64, no <random> distributions; only std::exp comes from the C
// library, whose last bit could at worst flip a rare byte on another platform). float32 reaches
// about 98% on it in 3 epochs (Fashion-MNIST: about 87%).
#ifndef MIXPREC_PRECISION_STUDY_DATA_HPP
#define MIXPREC_PRECISION_STUDY_DATA_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(MIXPREC_STUDY_HAVE_ZLIB)
#include <zlib.h>
#endif

#include "study.hpp"

namespace precision_study {

constexpr std::size_t image_side = 28;
constexpr std::size_t image_pixels = image_side * image_side;
constexpr std::size_t num_classes = 10;

/// A gzip file met by a build without zlib.
class gzip_unavailable : public study_error {
 public:
  using study_error::study_error;
};

/// Images as bytes (row-major, image_pixels per image) and their labels.
struct image_set {
  std::vector<std::uint8_t> pixels;
  std::vector<std::int32_t> labels;
  std::size_t size() const noexcept { return labels.size(); }
};

struct dataset {
  image_set train;  ///< all training images (the study splits off the validation part)
  image_set test;
  std::string source;  ///< what was loaded, for the report ("Fashion-MNIST (DIR)" or "synthetic")
  bool synthetic = false;
};

/// Whether this build reads gzip files.
constexpr bool have_gzip() noexcept {
#if defined(MIXPREC_STUDY_HAVE_ZLIB)
  return true;
#else
  return false;
#endif
}

namespace detail {

#if defined(MIXPREC_STUDY_HAVE_ZLIB)
/// zlib's message for f's error, without the "PATH: " prefix zlib puts in front.
inline std::string zlib_message(gzFile f, const std::string& path) {
  int code = 0;
  const char* m = gzerror(f, &code);
  std::string msg = m != nullptr && *m != '\0' ? m : "zlib error " + std::to_string(code);
  if (msg.rfind(path + ": ", 0) == 0) msg = msg.substr(path.size() + 2);
  return msg;
}
#endif

/// A file read front to back: gzip-decoded through zlib when available (gzread passes raw files
/// through), else raw (a gzip file is refused with gzip_unavailable). Reads only what is asked
/// for, so a reader that knows how much it wants never decompresses more (a gzip bomb costs
/// nothing). Throws study_error naming the file.
class byte_source {
 public:
  explicit byte_source(const std::string& path) : path_(path) {
#if defined(MIXPREC_STUDY_HAVE_ZLIB)
    f_ = gzopen(path.c_str(), "rb");
#else
    f_ = std::fopen(path.c_str(), "rb");
#endif
    if (f_ == nullptr) throw study_error(path + ": cannot open");
  }
  byte_source(const byte_source&) = delete;
  byte_source& operator=(const byte_source&) = delete;
  ~byte_source() {
#if defined(MIXPREC_STUDY_HAVE_ZLIB)
    gzclose(f_);
#else
    std::fclose(f_);
#endif
  }

  /// Reads up to n bytes into p; fewer only at the end of the data.
  std::size_t read(std::uint8_t* p, std::size_t n) {
    std::size_t got = 0;
#if defined(MIXPREC_STUDY_HAVE_ZLIB)
    while (got < n) {
      const unsigned ask = static_cast<unsigned>(std::min<std::size_t>(n - got, std::size_t{1} << 30));
      const int r = gzread(f_, p + got, ask);
      if (r < 0) throw study_error(path_ + ": corrupt gzip data (" + zlib_message(f_, path_) + ")");
      if (r == 0) {
        // A gzip stream cut short reads as a clean end in some zlib versions: ask explicitly.
        int code = 0;
        gzerror(f_, &code);
        if (code != Z_OK && code != Z_STREAM_END) {
          throw study_error(path_ + ": corrupt or truncated gzip data (" + zlib_message(f_, path_) + ")");
        }
        break;
      }
      got += static_cast<std::size_t>(r);
    }
#else
    got = std::fread(p, 1, n, f_);
    if (got < n && std::ferror(f_) != 0) throw study_error(path_ + ": read error");
    if (delivered_ == 0 && got >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
      throw gzip_unavailable(path_ +
                             ": is gzip-compressed but this build has no gzip support (zlib was not found when it "
                             "was built); gunzip the file or rebuild with zlib");
    }
#endif
    delivered_ += got;
    return got;
  }

  /// Bytes delivered so far (decompressed).
  std::uint64_t delivered() const noexcept { return delivered_; }
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
#if defined(MIXPREC_STUDY_HAVE_ZLIB)
  gzFile f_ = nullptr;
#else
  std::FILE* f_ = nullptr;
#endif
  std::uint64_t delivered_ = 0;
};

inline std::uint32_t be32(const std::uint8_t* b) {
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]};
}

inline std::string hex32(std::uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", static_cast<unsigned>(v));
  return s;
}

/// Reads the header_size bytes of an IDX header; throws naming `what` when the file is shorter.
inline void read_header(byte_source& src, std::uint8_t* h, std::size_t header_size, const char* what) {
  const std::size_t got = src.read(h, header_size);
  if (got < header_size) {
    throw study_error(src.path() + ": truncated: " + std::to_string(got) + " bytes, shorter than an " + what +
                      " header");
  }
}

/// The payload an IDX header announces: reads at most payload + 1 bytes (the one more tells
/// bytes after the data from none), growing the buffer with what arrives, not with the claim.
inline std::vector<std::uint8_t> read_payload(byte_source& src, std::size_t payload) {
  std::vector<std::uint8_t> b;
  const std::size_t want = payload + 1;
  std::size_t have = 0;
  while (have < want) {
    const std::size_t chunk = std::min<std::size_t>(want - have, std::size_t{1} << 24);
    b.resize(have + chunk);
    const std::size_t got = src.read(b.data() + have, chunk);
    have += got;
    if (got < chunk) break;
  }
  b.resize(have);
  if (have < payload) {
    throw study_error(src.path() + ": truncated: the header announces " + std::to_string(payload) +
                      " bytes of data, the file has " + std::to_string(have));
  }
  if (have > payload) {
    throw study_error(src.path() + ": corrupt: bytes after the " + std::to_string(payload) +
                      " bytes of data the header announces");
  }
  return b;
}

/// The largest count of images or labels an IDX header may announce (Fashion-MNIST: 60000).
constexpr std::uint32_t max_idx_items = 1u << 20;

inline void check_count(const std::string& path, std::uint32_t n, const char* what) {
  if (n > max_idx_items) {
    throw study_error(path + ": the header announces " + std::to_string(n) + " " + what + ", more than the " +
                      std::to_string(max_idx_items) + " this reader takes");
  }
}

/// read_idx_images from an open source (the public one opens the file).
inline std::vector<std::uint8_t> read_idx_images(byte_source& src, std::size_t& count) {
  const std::string& path = src.path();
  std::uint8_t h[16];
  read_header(src, h, 16, "IDX3");
  const std::uint32_t magic = be32(h);
  if (magic != 0x00000803u) {
    throw study_error(path + ": not an IDX image file (magic " + hex32(magic) + ", expected 0x00000803)");
  }
  const std::uint32_t n = be32(h + 4), rows = be32(h + 8), cols = be32(h + 12);
  if (rows != image_side || cols != image_side) {
    throw study_error(path + ": images are " + std::to_string(rows) + "x" + std::to_string(cols) + ", expected 28x28");
  }
  if (n == 0) throw study_error(path + ": holds no image");
  check_count(path, n, "images");
  std::vector<std::uint8_t> px = read_payload(src, static_cast<std::size_t>(n) * image_pixels);
  count = n;
  return px;
}

/// read_idx_labels from an open source.
inline std::vector<std::int32_t> read_idx_labels(byte_source& src) {
  const std::string& path = src.path();
  std::uint8_t h[8];
  read_header(src, h, 8, "IDX1");
  const std::uint32_t magic = be32(h);
  if (magic != 0x00000801u) {
    throw study_error(path + ": not an IDX label file (magic " + hex32(magic) + ", expected 0x00000801)");
  }
  const std::uint32_t n = be32(h + 4);
  check_count(path, n, "labels");
  const std::vector<std::uint8_t> b = read_payload(src, n);
  std::vector<std::int32_t> labels(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t v = b[i];
    if (v >= num_classes) {
      throw study_error(path + ": corrupt: label " + std::to_string(v) + " at index " + std::to_string(i) +
                        " is outside 0..9");
    }
    labels[i] = v;
  }
  return labels;
}

}  // namespace detail

/// Reads an IDX3 file of 28x28 byte images (header first, then at most the payload it announces
/// and one byte more). Throws study_error naming the file.
inline std::vector<std::uint8_t> read_idx_images(const std::string& path, std::size_t& count) {
  detail::byte_source src(path);
  return detail::read_idx_images(src, count);
}

/// Reads an IDX1 file of labels 0..9 (as read_idx_images). Throws study_error naming the file.
inline std::vector<std::int32_t> read_idx_labels(const std::string& path) {
  detail::byte_source src(path);
  return detail::read_idx_labels(src);
}

namespace detail {

inline bool file_exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  std::fclose(f);
  return true;
}

/// DIR/NAME.gz or DIR/NAME, whichever exists (both: the .gz with zlib, the raw file without);
/// empty when neither.
inline std::string find_idx(const std::string& dir, const std::string& name) {
  const std::string base = dir.empty() ? name : (dir.back() == '/' ? dir + name : dir + "/" + name);
  const std::string first = have_gzip() ? base + ".gz" : base, second = have_gzip() ? base : base + ".gz";
  if (file_exists(first)) return first;
  if (file_exists(second)) return second;
  return {};
}

inline image_set load_pair(const std::string& images_path, const std::string& labels_path) {
  image_set s;
  std::size_t n = 0;
  s.pixels = precision_study::read_idx_images(images_path, n);
  s.labels = precision_study::read_idx_labels(labels_path);
  if (s.labels.size() != n) {
    throw study_error(labels_path + ": holds " + std::to_string(s.labels.size()) + " labels but " + images_path +
                      " holds " + std::to_string(n) + " images");
  }
  return s;
}

}  // namespace detail

/// The four Fashion-MNIST file names (without .gz).
inline const char* const* idx_file_names() noexcept {
  static const char* const names[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                                       "t10k-labels-idx1-ubyte"};
  return names;
}

/// Loads Fashion-MNIST from dir. Returns false when none of the four files is there (so the
/// caller may fall back to the synthetic task); throws study_error when only some are there or
/// one is bad.
inline bool load_fashion_mnist(const std::string& dir, dataset& out) {
  std::string paths[4];
  int found = 0;
  for (int i = 0; i < 4; ++i) {
    paths[i] = detail::find_idx(dir, idx_file_names()[i]);
    if (!paths[i].empty()) ++found;
  }
  if (found == 0) return false;
  for (int i = 0; i < 4; ++i) {
    if (paths[i].empty()) {
      throw study_error(dir + ": has some Fashion-MNIST files but not " + idx_file_names()[i] + "[.gz]");
    }
  }
  dataset d;
  d.train = detail::load_pair(paths[0], paths[1]);
  d.test = detail::load_pair(paths[2], paths[3]);
  d.source = "Fashion-MNIST (" + dir + ")";
  out = std::move(d);
  return true;
}

namespace detail {

/// SplitMix64: the same stream on every platform.
class splitmix64 {
 public:
  explicit splitmix64(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n) (n > 0), without modulo bias.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
    for (;;) {
      const std::uint64_t r = next();
      if (r < limit) return r % n;
    }
  }

 private:
  std::uint64_t s_;
};

inline image_set synthetic_split(const std::vector<double>& protos, std::size_t count, std::uint64_t seed) {
  splitmix64 rng(seed);
  image_set s;
  s.pixels.resize(count * image_pixels);
  s.labels.resize(count);
  const int side = static_cast<int>(image_side);
  for (std::size_t n = 0; n < count; ++n) {
    const std::size_t c = static_cast<std::size_t>(rng.below(num_classes));
    std::size_t other = static_cast<std::size_t>(rng.below(num_classes - 1));
    if (other >= c) ++other;
    const int dx = static_cast<int>(rng.below(5)) - 2, dy = static_cast<int>(rng.below(5)) - 2;
    const double contrast = 0.6 + 0.5 * rng.uniform();
    const double blend = 0.6 * rng.uniform();
    s.labels[n] = static_cast<std::int32_t>(c);
    std::uint8_t* img = s.pixels.data() + n * image_pixels;
    for (int y = 0; y < side; ++y) {
      for (int x = 0; x < side; ++x) {
        const int sy = y - dy, sx = x - dx;
        double v = 0.0;
        if (sy >= 0 && sy < side && sx >= 0 && sx < side) {
          const std::size_t at = static_cast<std::size_t>(sy * side + sx);
          v = contrast * protos[c * image_pixels + at] + blend * protos[other * image_pixels + at];
        }
        // Noise: the sum of three uniforms, centred (a cheap bell shape), standard deviation 0.15.
        v += 0.3 * (rng.uniform() + rng.uniform() + rng.uniform() - 1.5);
        v = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
        img[static_cast<std::size_t>(y * side + x)] = static_cast<std::uint8_t>(std::lround(v * 255.0));
      }
    }
  }
  return s;
}

}  // namespace detail

/// The built-in synthetic task (see the header comment): 60000 training and 10000 test images.
inline dataset make_synthetic(std::size_t train_count = 60000, std::size_t test_count = 10000) {
  detail::splitmix64 rng(0x5EED5EEDull);
  std::vector<double> protos(num_classes * image_pixels, 0.0);
  auto blob = [&](std::size_t c, double amp, double spread) {
    const double cy = 5.0 + 18.0 * rng.uniform(), cx = 5.0 + 18.0 * rng.uniform();
    const double sy = spread * (0.5 + rng.uniform()), sx = spread * (0.5 + rng.uniform());
    for (std::size_t y = 0; y < image_side; ++y) {
      for (std::size_t x = 0; x < image_side; ++x) {
        const double ey = (static_cast<double>(y) - cy) / sy, ex = (static_cast<double>(x) - cx) / sx;
        protos[c * image_pixels + y * image_side + x] += amp * std::exp(-0.5 * (ey * ey + ex * ex));
      }
    }
  };
  // Three families of classes sharing a large base shape, told apart by smaller blobs.
  for (std::size_t family = 0; family < 3; ++family) {
    const std::uint64_t state = rng.next();
    for (std::size_t c = family; c < num_classes; c += 3) {
      detail::splitmix64 base(state);
      std::swap(rng, base);
      blob(c, 0.5, 6.0);
      blob(c, 0.3, 4.0);
      std::swap(rng, base);
      const int small = 2 + static_cast<int>(rng.below(2));
      for (int k = 0; k < small; ++k) blob(c, 0.5 + 0.3 * rng.uniform(), 2.5);
    }
  }
  for (double& p : protos) p = p > 1.0 ? 1.0 : p;
  dataset d;
  d.train = detail::synthetic_split(protos, train_count, 1);
  d.test = detail::synthetic_split(protos, test_count, 2);
  d.source = "synthetic (built-in task)";
  d.synthetic = true;
  return d;
}

}  // namespace precision_study

#endif  // MIXPREC_PRECISION_STUDY_DATA_HPP
