// A starter bot for Ultimate Tic-Tac-Toe (CodinGame protocol).
//
// Every turn it reads the opponent's last move ("row col", "-1 -1" on the first
// turn), the number of valid actions and that many "row col" lines, and answers
// "row col": here the first valid action. Put your strategy in choose.
#include <iostream>
#include <utility>
#include <vector>

using Action = std::pair<int, int>;

// The action to play: here the first valid one.
static Action choose(Action last, const std::vector<Action> &actions) {
    (void)last;
    return actions[0];
}

int main() {
    Action last;
    int n;
    while (std::cin >> last.first >> last.second >> n) {
        std::vector<Action> actions(n);
        for (auto &action : actions) std::cin >> action.first >> action.second;
        Action move = choose(last, actions);
        std::cout << move.first << " " << move.second << std::endl;
    }
}
