// `tierfs heatmap --png` (heatmap.h): the map as an RGB image, written with
// libpng. Rows are files, columns segments; the tier is the hue, the heat the
// brightness.
#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/tierfs/heatmap.h"

namespace tierfs {
namespace tool {

namespace {

const Rgb kNoSegment = {40, 40, 40};

Rgb Scale(Rgb c, double f) {
  return Rgb{uint8_t(c.r * f + 0.5), uint8_t(c.g * f + 0.5), uint8_t(c.b * f + 0.5)};
}

// The colour of pixel row `y` (0 at the top) of `cell`'s square of `side`.
Rgb CellColour(const HeatCell& cell, double max_value, int y, int side) {
  if (cell.tier < 0) return kNoSegment;
  if (cell.copy_tier >= 0 && side >= 4 && y < side / 4) return TierRgb(cell.copy_tier);
  const double heat = max_value > 0 ? std::min(1.0, cell.value / max_value) : 0.0;
  return Scale(TierRgb(cell.tier), 0.2 + 0.8 * heat);
}

// libpng reports errors by longjmp; its message is kept here for the Status.
void OnPngError(png_structp png, png_const_charp message) {
  auto* error = static_cast<std::string*>(png_get_error_ptr(png));
  *error = message;
  png_longjmp(png, 1);
}

void OnPngWarning(png_structp, png_const_charp) {}  // the library never prints

}  // namespace

PngLayout HeatMapPngLayout(const HeatMap& map) {
  size_t columns = 1;
  for (const HeatRow& r : map.rows) columns = std::max(columns, r.cells.size());
  const size_t rows = std::max<size_t>(map.rows.size(), 1);
  PngLayout layout;
  layout.cell = 8;
  while (layout.cell > 1 && std::max(columns, rows) * size_t(layout.cell) >
                                size_t(PngLayout::kMaxPngSide)) {
    layout.cell /= 2;
  }
  layout.width = int(columns) * layout.cell;
  layout.height = int(rows) * layout.cell;
  return layout;
}

namespace {

// Writes the image through `png` into `line`'s buffer, a pixel row at a time.
// The one frame that calls setjmp: it holds nothing with a destructor, so
// libpng's longjmp on an error skips none. False on an error (kept by
// OnPngError).
bool WriteImage(png_structp png, png_infop info, const HeatMap& map, const PngLayout& layout,
                png_byte* line) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_IHDR(png, info, png_uint_32(layout.width), png_uint_32(layout.height), 8,
               PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const size_t rows = std::max<size_t>(map.rows.size(), 1);
  for (size_t r = 0; r < rows; ++r) {
    for (int y = 0; y < layout.cell; ++y) {
      for (int x = 0; x < layout.width; ++x) {
        const size_t s = size_t(x / layout.cell);
        const bool placed = r < map.rows.size() && s < map.rows[r].cells.size();
        const Rgb c = placed ? CellColour(map.rows[r].cells[s], map.max_value, y, layout.cell)
                             : kNoSegment;
        line[size_t(x) * 3] = c.r;
        line[size_t(x) * 3 + 1] = c.g;
        line[size_t(x) * 3 + 2] = c.b;
      }
      png_write_row(png, line);
    }
  }
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

rocksdb::Status WriteHeatMapPng(const HeatMap& map, const std::string& path, PngLayout* out) {
  const PngLayout layout = HeatMapPngLayout(map);
  FILE* f = fopen(path.c_str(), "wb");
  if (!f) return rocksdb::Status::IOError("cannot write the PNG " + path, strerror(errno));
  std::string error = "libpng could not start";
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, OnPngError,
                                            OnPngWarning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  std::vector<png_byte> line(size_t(layout.width) * 3);
  bool ok = png && info;
  if (ok) {
    png_init_io(png, f);
    ok = WriteImage(png, info, map, layout, line.data());
  }
  png_destroy_write_struct(&png, &info);
  if (fclose(f) != 0 && ok) {
    error = strerror(errno);
    ok = false;
  }
  if (!ok) return rocksdb::Status::IOError("cannot write the PNG " + path, error);
  if (out) *out = layout;
  return rocksdb::Status::OK();
}

}  // namespace tool
}  // namespace tierfs
