// C++ with the standard library's exceptions and containers, for gcc's DWARF: its declarations
// name their `this` parameter in DW_AT_object_pointer.
#include <stdexcept>
#include <string>
#include <vector>

namespace acct {

class Ledger {
public:
    explicit Ledger(long limit) : limit_(limit) {}
    void post(long amount) {
        if (total_ + amount > limit_)
            throw std::overflow_error("limit " + std::to_string(limit_));
        entries_.push_back(amount);
        total_ += amount;
    }
    long total() const { return total_; }
    std::size_t size() const { return entries_.size(); }

private:
    long limit_;
    long total_ = 0;
    std::vector<long> entries_;
};

template <typename T> T clamp_to(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }

} // namespace acct

int run(int n) {
    acct::Ledger l(1000);
    try {
        for (int i = 0; i < n; i++)
            l.post(acct::clamp_to<long>(i * 37, 0, 300));
    } catch (const std::overflow_error &e) {
        return -static_cast<int>(l.size());
    }
    return static_cast<int>(l.total());
}
