// Corpus input for dwarv's LLVM frontend: C++ with namespaces, class templates, a function
// template, single and virtual inheritance, a static member and a using-declaration. Freestanding
// (no headers), compiled for x86-64 at -O0 and -O2.

namespace geo {
namespace detail {
template <typename T> struct vec2 {
    T x, y;
    T dot(const vec2 &o) const { return x * o.x + y * o.y; }
};
} // namespace detail

using detail::vec2;

class shape {
public:
    virtual ~shape() {}
    virtual float area() const = 0;
    static int count;

protected:
    vec2<float> origin{0, 0};
};

int shape::count = 0;

class rect : public shape {
public:
    rect(float w, float h) : size{w, h} { ++count; }
    float area() const override { return size.x * size.y; }

private:
    vec2<float> size;
};

struct tagged : virtual shape {
    unsigned tag = 7;
    float area() const override { return float(tag); }
};

template <typename T, int N> T sum(const T (&v)[N]) {
    T s{};
    for (int i = 0; i < N; i++)
        s += v[i];
    return s;
}
} // namespace geo

int main(int argc, char **) {
    geo::rect r(2.0f, float(argc));
    geo::tagged t;
    geo::vec2<int> a{argc, 3};
    int parts[3] = {a.dot(a), argc, 1};
    const geo::shape *all[2] = {&r, &t};
    float total = 0;
    for (const geo::shape *s : all)
        total += s->area();
    return int(total) + geo::sum(parts) + geo::shape::count;
}
