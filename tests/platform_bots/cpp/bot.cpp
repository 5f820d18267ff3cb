// A Riddles.io Ultimate Tic-Tac-Toe bot: plays legal moves by its STRATEGY.
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static const std::string STRATEGY = "random";  // random | first | center | win-if-possible
static const uint64_t SEED = 0;
static const int LINES[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};

// The fixtures' LCG, the same in every language.
struct Rng {
    uint64_t state = SEED * 2654435761ULL + 12345;
    int below(int n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<int>((state >> 33) % static_cast<uint64_t>(n));
    }
};

static std::vector<std::string> split(const std::string &text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(item);
    return out;
}

static int cell(int board, int k) { return 9 * (3 * (board / 3) + k / 3) + 3 * (board % 3) + k % 3; }

static bool wins(const std::vector<std::string> &field, int i, const std::string &me) {
    int board = 3 * (i / 27) + (i % 9) / 3;
    for (const auto &line : LINES) {
        bool all = true;
        for (int k : line) all = all && (cell(board, k) == i || field[cell(board, k)] == me);
        if (all) return true;
    }
    return false;
}

static int choose(const std::vector<std::string> &field, const std::vector<std::string> &macro,
                  const std::string &me, Rng &rng) {
    std::vector<int> legal, best;
    for (int i = 0; i < 81; i++)
        if (field[i] == "." && macro[3 * (i / 27) + (i % 9) / 3] == "-1") legal.push_back(i);
    if (STRATEGY == "first") return legal[0];
    if (STRATEGY == "center") {
        for (int i : legal)
            if (i % 3 == 1 && (i / 9) % 3 == 1) best.push_back(i);
        if (best.empty())
            for (int i : legal)
                if (i % 3 != 1 && (i / 9) % 3 != 1) best.push_back(i);
    }
    if (STRATEGY == "win-if-possible")
        for (int i : legal)
            if (wins(field, i, me)) best.push_back(i);
    if (best.empty()) best = legal;
    return best[rng.below(static_cast<int>(best.size()))];
}

int main() {
    Rng rng;
    std::string me = "0", line;
    std::vector<std::string> field, macro;
    while (std::getline(std::cin, line)) {
        std::stringstream in(line);
        std::string a, b, c, d;
        in >> a >> b >> c >> d;
        if (a == "settings" && b == "your_botid") {
            me = c;
        } else if (a == "update" && c == "field") {
            field = split(d);
        } else if (a == "update" && c == "macroboard") {
            macro = split(d);
        } else if (a == "action" && b == "move") {
            int i = choose(field, macro, me, rng);
            std::cout << "place_disc " << i % 9 << " " << i / 9 << std::endl;
        }
    }
}
