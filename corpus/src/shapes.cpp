// C++ features for the DWARF reader: namespaces, classes with virtual methods and
// inheritance, templates (type, value, pack), enum class, references, static members,
// using-declarations, lambdas and an inlined call chain.
#include <stddef.h>

namespace geo {
enum class Unit : unsigned char { Mm = 1, Cm = 10, M = 100 };

struct Shape {
  static int count;
  Unit unit = Unit::Mm;
  Shape() { ++count; }
  virtual ~Shape() { --count; }
  virtual double area() const = 0;
};
int Shape::count = 0;

template <typename T, int N> struct Poly : Shape {
  T xs[N];
  T ys[N];
  double area() const override {
    double a = 0;
    for (int i = 0; i < N; ++i) {
      int j = (i + 1) % N;
      a += double(xs[i]) * ys[j] - double(xs[j]) * ys[i];
    }
    return a < 0 ? -a / 2 : a / 2;
  }
};

class Circle final : public Shape {
  double r_;

public:
  explicit Circle(double r) : r_(r) {}
  double area() const override { return 3.14159 * r_ * r_; }
  double &radius() { return r_; }
};

template <typename... Ts> inline double sum_areas(const Ts &...s) { return (0.0 + ... + s.area()); }
} // namespace geo

using geo::Circle;
namespace alias = geo;

static inline int scaled(int v, int by) { return v * by; }

int main(int argc, char **argv) {
  alias::Poly<int, 3> tri;
  tri.xs[0] = 0; tri.ys[0] = 0;
  tri.xs[1] = 4; tri.ys[1] = 0;
  tri.xs[2] = 0; tri.ys[2] = scaled(argc, 3);
  Circle c(argc * 0.5);
  c.radius() += 1.0;
  auto twice = [&](double x) { return x * 2 + c.radius(); };
  size_t n = geo::Shape::count;
  double total = geo::sum_areas(tri, c);
  return int(twice(total) + n) + (argv != nullptr);
}
