#include "chart/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

namespace diskcond::chart {
namespace {

// Colour-blind-safe palette (Okabe-Ito).
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                    "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
const char* colour(size_t i) {
  return kPalette[i % std::size(kPalette)];
}

// Plot area inside the document, leaving room for title, axes and legend.
struct Frame {
  double left = 70, top = 40, right, bottom;
  Frame(ChartSize s) : right(s.width - 20.0), bottom(s.height - 70.0) {}
  double width() const { return right - left; }
  double height() const { return bottom - top; }
};

std::string header(ChartSize s, const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" "
      "font-weight=\"bold\">{3}</text>\n",
      s.width, s.height, s.width / 2, xml_escape(title));
}

std::string format_tick(double v) {
  if (v == 0) return "0";
  if (std::fabs(v) >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (std::fabs(v) >= 1e4) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

// Y axis with gridlines: linear 0..max in 5 steps, or one line per decade on a log scale.
std::string y_axis(const Frame& f, double max, bool log_scale, double log_min,
                   const std::string& label) {
  std::string out;
  auto line = [&](double y, double value) {
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", f.left,
        y, f.right, y);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                       f.left - 6, y + 4, format_tick(value));
  };
  if (log_scale) {
    for (double v = log_min; v <= max * 1.0001; v *= 10) {
      line(f.bottom - f.height() * std::log10(v / log_min) / std::log10(max / log_min), v);
    }
  } else {
    for (int i = 0; i <= 5; ++i) line(f.bottom - f.height() * i / 5.0, max * i / 5.0);
  }
  out += fmt::format(
      "<text transform=\"translate(16,{:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      f.top + f.height() / 2, xml_escape(label));
  out += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"black\"/>\n",
      f.left, f.top, f.bottom);
  out += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"black\"/>\n",
      f.left, f.right, f.bottom);
  return out;
}

std::string legend(ChartSize s, const std::vector<std::string>& names) {
  std::string out;
  double x = 70;
  const double y = s.height - 10.0;
  for (size_t i = 0; i < names.size(); ++i) {
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n",
                       x, y - 10, colour(i));
    out +=
        fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x + 16, y, xml_escape(names[i]));
    x += 28 + 7.0 * static_cast<double>(names[i].size());
  }
  return out;
}

}  // namespace

double nice_ceiling(double value) {
  if (!(value > 0) || !std::isfinite(value)) return 1;
  const double decade = std::pow(10.0, std::floor(std::log10(value)));
  for (double step : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (step * decade >= value * (1 - 1e-12)) return step * decade;
  }
  return 10 * decade;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_bar_chart(const BarChart& chart, ChartSize size) {
  const Frame f(size);
  double max = 0, min_positive = INFINITY;
  for (const auto& g : chart.groups) {
    for (double v : g.values) {
      max = std::max(max, v);
      if (v > 0) min_positive = std::min(min_positive, v);
    }
  }
  const bool log_scale = chart.log_scale && max > 0;
  // One decade below the smallest value, so that the smallest bar stays visible.
  const double log_min = log_scale ? std::pow(10.0, std::floor(std::log10(min_positive)) - 1) : 1;
  const double top = log_scale ? std::pow(10.0, std::ceil(std::log10(max))) : nice_ceiling(max);
  auto bar_height = [&](double v) {
    if (v <= 0) return 0.0;
    if (!log_scale) return f.height() * v / top;
    return f.height() * std::log10(std::max(v, log_min) / log_min) / std::log10(top / log_min);
  };

  std::string out = header(size, chart.title) + y_axis(f, top, log_scale, log_min, chart.y_label);
  const double group_width = f.width() / std::max<size_t>(1, chart.groups.size());
  const size_t n_series = std::max<size_t>(1, chart.series.size());
  const double bar_width = group_width * 0.8 / static_cast<double>(n_series);
  for (size_t g = 0; g < chart.groups.size(); ++g) {
    const double x0 = f.left + group_width * static_cast<double>(g) + group_width * 0.1;
    for (size_t s = 0; s < chart.groups[g].values.size() && s < n_series; ++s) {
      const double v = chart.groups[g].values[s];
      const double h = bar_height(v);
      out += fmt::format(
          "<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\">"
          "<title>{}: {:g}</title></rect>\n",
          x0 + bar_width * static_cast<double>(s), f.bottom - h, bar_width, h, colour(s),
          xml_escape(chart.series.empty() ? chart.groups[g].label : chart.series[s]), v);
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       x0 + group_width * 0.4, f.bottom + 16, xml_escape(chart.groups[g].label));
  }
  return out + legend(size, chart.series) + "</svg>\n";
}

std::string render_line_chart(const LineChart& chart, ChartSize size) {
  const Frame f(size);
  double x_max = 0, y_max = 0;
  for (const auto& s : chart.series) {
    for (auto [x, y] : s.points) {
      x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
    }
  }
  x_max = nice_ceiling(x_max);
  y_max = nice_ceiling(y_max);
  std::string out = header(size, chart.title) + y_axis(f, y_max, false, 1, chart.y_label);
  for (int i = 0; i <= 5; ++i) {
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       f.left + f.width() * i / 5.0, f.bottom + 16, format_tick(x_max * i / 5.0));
  }
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                     f.left + f.width() / 2, f.bottom + 32, xml_escape(chart.x_label));
  std::vector<std::string> names;
  for (size_t s = 0; s < chart.series.size(); ++s) {
    names.push_back(chart.series[s].name);
    std::string points;
    for (auto [x, y] : chart.series[s].points) {
      points += fmt::format("{:.1f},{:.1f} ", f.left + f.width() * x / x_max,
                            f.bottom - f.height() * y / y_max);
    }
    out += fmt::format(
        "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "points=\"{}\"/>\n",
        colour(s), points);
  }
  return out + legend(size, names) + "</svg>\n";
}

std::string stack_svg(const std::vector<std::string>& documents) {
  static const std::regex kSize(R"re(<svg [^>]*width="(\d+)" height="(\d+)")re");
  int width = 0, height = 0;
  std::string body;
  for (const std::string& doc : documents) {
    std::smatch m;
    if (!std::regex_search(doc, m, kSize)) continue;
    const int w = std::stoi(m[1]), h = std::stoi(m[2]);
    body += fmt::format("<g transform=\"translate(0,{})\">\n", height);
    body += doc.substr(doc.find('>') + 1, doc.rfind("</svg>") - doc.find('>') - 1);
    body += "</g>\n";
    width = std::max(width, w);
    height += h;
  }
  return fmt::format(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 "
             "{0} {1}\" "
             "font-family=\"sans-serif\" font-size=\"12\">\n",
             width, height) +
         body + "</svg>\n";
}

}  // namespace diskcond::chart
