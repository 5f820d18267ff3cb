// A starter bot for Ultimate Tic-Tac-Toe (AI Games and Riddles.io protocols).
//
// It reads the position ("update game field", "update game macroboard") and, on
// "action move", answers "place_move X Y" with the first legal square. Squares are
// numbered 9 * y + x; a small board may be played where the macroboard says -1.
// Put your strategy in choose.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

static std::vector<std::string> split(const std::string &text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) out.push_back(item);
    return out;
}

// The square (0-80) to play: here the first legal one.
static int choose(const std::vector<std::string> &field,
                  const std::vector<std::string> &macroboard) {
    // Riddles.io's empty square, or AI Games' (where "." never appears)
    std::string empty = std::find(field.begin(), field.end(), ".") != field.end() ? "." : "0";
    for (int i = 0; i < 81; i++) {
        int board = 3 * (i / 27) + (i % 9) / 3;
        if (field[i] == empty && macroboard[board] == "-1") return i;
    }
    throw std::runtime_error("no legal move");
}

int main() {
    std::vector<std::string> field, macroboard;
    for (std::string line; std::getline(std::cin, line);) {
        std::istringstream in(line);
        std::vector<std::string> parts;
        for (std::string word; in >> word;) parts.push_back(word);
        if (parts.size() == 4 && parts[0] == "update" && parts[2] == "field") {
            field = split(parts[3]);
        } else if (parts.size() == 4 && parts[0] == "update" && parts[2] == "macroboard") {
            macroboard = split(parts[3]);
        } else if (parts.size() >= 2 && parts[0] == "action" && parts[1] == "move") {
            int i = choose(field, macroboard);
            std::cout << "place_move " << i % 9 << " " << i / 9 << std::endl;
        }
    }
}
