#include "worker/transpose_case.hpp"

#include <cstdio>
#include <cstring>

namespace course {

transpose_buffers::transpose_buffers(unsigned r, unsigned c)
    : rows(r), cols(c), in(std::size_t{r} * c, "input matrix"), out(std::size_t{r} * c, "output matrix") {}

bool parse_shape(const std::string& text, unsigned& rows, unsigned& cols) {
    return std::sscanf(text.c_str(), "%ux%u", &rows, &cols) == 2 && rows > 0 && cols > 0;
}

case_record judge_transpose(const std::string& part_id, transpose_buffers& bufs, const std::vector<float>& host_in,
                            input_kind kind) {
    CUDA_CHECK(cudaDeviceSynchronize());
    const unsigned rows = bufs.rows, cols = bufs.cols;
    const std::size_t count = std::size_t{rows} * cols;
    std::vector<float> got(count);
    CUDA_CHECK(cudaMemcpy(got.data(), bufs.out.data(), count * sizeof(float), cudaMemcpyDeviceToHost));

    case_record rec;
    rec.part = part_id;
    rec.input = to_string(kind);
    rec.size = std::to_string(rows) + "x" + std::to_string(cols);
    rec.n = count;
    rec.guard_hit = !bufs.out.guards_intact();
    rec.ok = !rec.guard_hit;
    std::size_t wrong = 0;
    for (std::size_t o = 0; o < count; ++o) {
        const unsigned c = static_cast<unsigned>(o / rows), r = static_cast<unsigned>(o % rows);
        const float want = host_in[std::size_t{r} * cols + c];
        if (std::memcmp(&got[o], &want, sizeof(float)) == 0) continue;
        if (wrong++ > 0) continue;  // describe the first, count them all
        std::uint32_t bits = 0;
        std::memcpy(&bits, &got[o], sizeof bits);
        rec.ok = false;
        rec.expected = want;
        rec.got = got[o];
        rec.untouched = bits == poison_bits;
        char where[96];
        std::snprintf(where, sizeof where, "out[%u][%u] (should be in[%u][%u])", c, r, r, c);
        if (rec.untouched) {
            rec.detail = std::string(where) + " was never written";
        } else if (kind == input_kind::index && got[o] >= 0 && got[o] < static_cast<float>(count) &&
                   got[o] == static_cast<float>(static_cast<std::size_t>(got[o]))) {
            const auto src = static_cast<std::size_t>(got[o]);
            std::snprintf(where, sizeof where, "out[%u][%u] holds in[%zu][%zu], not in[%u][%u]", c, r, src / cols,
                          src % cols, r, c);
            rec.detail = where;
        } else {
            rec.detail = std::string(where) + " is wrong";
        }
    }
    if (wrong > 0) rec.detail += " (" + std::to_string(wrong) + " of " + std::to_string(count) + " elements wrong)";
    if (rec.guard_hit) rec.detail = "a guard word past the end of the output was overwritten";
    return rec;
}

case_record run_transpose_case(const part& p, input_kind kind, unsigned rows, unsigned cols, std::uint64_t run_seed) {
    const std::size_t count = std::size_t{rows} * cols;
    const std::vector<float> host = make_input(kind, case_seed(run_seed, kind, std::uint64_t{rows} << 32 | cols), count);
    transpose_buffers bufs(rows, cols);
    bufs.in.upload(host.data(), count);
    bufs.out.poison();
    p.transpose(bufs.in.data(), bufs.out.data(), rows, cols);
    return judge_transpose(p.id, bufs, host, kind);
}

}  // namespace course
