#include "worker/transpose_case.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/hints.hpp"

namespace course {

transpose_buffers::transpose_buffers(unsigned r, unsigned c)
    : rows(r), cols(c), in(std::size_t{r} * c, "input matrix"), out(std::size_t{r} * c, "output matrix") {}

namespace {

// True when some input element has exactly got's bits.
bool in_input(const host_floats& host_in, float got) {
    return std::any_of(host_in.begin(), host_in.end(),
                       [&](const float& v) { return std::memcmp(&v, &got, sizeof got) == 0; });
}

// Records the first wrong element, out[c][r], which should hold in[r][c]. A transpose only
// moves values, so one found nowhere in the input was never this case's: typically a tile
// element read before its block wrote it, still holding what an earlier block or run left
// (on the emulator, the previous case's values), which must not pass for a misplaced one.
void note_wrong_element(case_record& rec, unsigned c, unsigned r, float got, const host_floats& host_in,
                        input_kind kind, unsigned cols) {
    const float want = host_in[std::size_t{r} * cols + c];
    std::uint32_t bits = 0;
    std::memcpy(&bits, &got, sizeof bits);
    rec.ok = false;
    rec.expected = want;
    rec.got = got;
    rec.untouched = bits == poison_bits;
    char where[160];
    std::snprintf(where, sizeof where, "out[%u][%u] (should be in[%u][%u])", c, r, r, c);
    if (rec.untouched) {
        rec.detail = std::string(where) + " was never written";
    } else if (!in_input(host_in, got)) {
        char value[48];
        std::snprintf(value, sizeof value, "%.9g", static_cast<double>(got));
        rec.detail = std::string(where) + " holds " + value + ", " + not_in_input_words +
                     ": memory this case never filled, such as a tile element read before its block wrote it (it "
                     "keeps what an earlier block or run left there)";
    } else if (kind == input_kind::index && got >= 0 && got < static_cast<float>(host_in.size()) &&
               got == static_cast<float>(static_cast<std::size_t>(got))) {
        // The index input's values are unique: the value says where it was taken from.
        const auto src = static_cast<std::size_t>(got);
        std::snprintf(where, sizeof where, "out[%u][%u] holds in[%zu][%zu], not in[%u][%u]", c, r, src / cols,
                      src % cols, r, c);
        rec.detail = where;
    } else {
        rec.detail = std::string(where) + " is wrong";
    }
}

case_record transpose_record(const std::string& part_id, transpose_buffers& bufs, input_kind kind) {
    case_record rec;
    rec.part = part_id;
    rec.input = to_string(kind);
    rec.size = std::to_string(bufs.rows) + "x" + std::to_string(bufs.cols);
    rec.n = std::size_t{bufs.rows} * bufs.cols;
    rec.guard_hit = !bufs.out.guards_intact();
    rec.ok = !rec.guard_hit;
    return rec;
}

}  // namespace

case_record judge_transpose(const std::string& part_id, transpose_buffers& bufs, const host_floats& host_in,
                            input_kind kind) {
    CUDA_CHECK(cudaDeviceSynchronize());
    const unsigned rows = bufs.rows, cols = bufs.cols;
    const std::size_t count = std::size_t{rows} * cols;
    std::vector<float> got(count);
    bufs.out.read(0, got.data(), count);

    case_record rec = transpose_record(part_id, bufs, kind);
    std::size_t wrong = 0;
    for (std::size_t o = 0; o < count; ++o) {
        const unsigned c = static_cast<unsigned>(o / rows), r = static_cast<unsigned>(o % rows);
        const float want = host_in[std::size_t{r} * cols + c];
        if (std::memcmp(&got[o], &want, sizeof(float)) == 0) continue;
        if (wrong++ == 0) note_wrong_element(rec, c, r, got[o], host_in, kind, cols);  // describe the first
    }
    if (wrong > 0) rec.detail += " (" + std::to_string(wrong) + " of " + std::to_string(count) + " elements wrong)";
    if (rec.guard_hit) rec.detail = "a guard word past the end of the output was overwritten";
    return rec;
}

case_record judge_transpose_sample(const std::string& part_id, transpose_buffers& bufs,
                                   const host_floats& host_in, const std::vector<std::size_t>& input_indices,
                                   const std::vector<std::size_t>& out_rows) {
    CUDA_CHECK(cudaDeviceSynchronize());
    const unsigned rows = bufs.rows, cols = bufs.cols;
    case_record rec = transpose_record(part_id, bufs, input_kind::random);
    std::size_t wrong = 0, checked = 0;
    const auto compare = [&](unsigned c, unsigned r, float got) {
        ++checked;
        const float want = host_in[std::size_t{r} * cols + c];
        if (std::memcmp(&got, &want, sizeof(float)) == 0) return;
        if (wrong++ == 0) note_wrong_element(rec, c, r, got, host_in, input_kind::random, cols);
    };
    for (const std::size_t i : input_indices) {
        const unsigned r = static_cast<unsigned>(i / cols), c = static_cast<unsigned>(i % cols);
        float got = 0;
        bufs.out.read(std::size_t{c} * rows + r, &got, 1);
        compare(c, r, got);
    }
    std::vector<float> row(rows);
    for (const std::size_t c : out_rows) {
        bufs.out.read(c * rows, row.data(), rows);
        for (unsigned r = 0; r < rows; ++r) compare(static_cast<unsigned>(c), r, row[r]);
    }
    if (wrong > 0)
        rec.detail += " (" + std::to_string(wrong) + " of " + std::to_string(checked) + " checked elements wrong)";
    if (rec.guard_hit) rec.detail = "a guard word past the end of the output was overwritten";
    return rec;
}

void run_transpose(const part& p, transpose_buffers& bufs) {
    launch_args a;
    a.in = bufs.in.data();
    a.out = bufs.out.data();
    a.rows = bufs.rows;
    a.cols = bufs.cols;
    p.launch(a);
}

std::uint64_t transpose_case_seed(std::uint64_t run_seed, input_kind kind, unsigned rows, unsigned cols) {
    return case_seed(run_seed, kind, std::uint64_t{rows} << 32 | cols);
}

case_record run_transpose_case(const part& p, input_kind kind, unsigned rows, unsigned cols, std::uint64_t run_seed,
                               input_cache& inputs) {
    const std::size_t count = std::size_t{rows} * cols;
    const host_floats& host = inputs.values(kind, transpose_case_seed(run_seed, kind, rows, cols), count);
    transpose_buffers bufs(rows, cols);
    bufs.in.upload(host.data(), count);
    bufs.out.poison();
    run_transpose(p, bufs);
    return judge_transpose(p.id, bufs, host, kind);
}

}  // namespace course
