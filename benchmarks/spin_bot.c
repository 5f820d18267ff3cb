/* A control for bot_clock.py: a CodinGame bot that does nothing but use its turn.
 *
 *     spin_bot [MS]        (default 88)
 *
 * Each turn it reads the CodinGame request (the opponent's move, the number of
 * valid actions, the actions), keeps the CPU busy until MS milliseconds after it
 * read the turn's first line (as a search that thinks until its deadline does),
 * then answers the first valid action. No interpreter, no garbage collector, no
 * child process: what makes its answers late on a referee's clock is the machine
 * (the scheduler, the hypervisor), not the bot. bot_clock.py --control times it
 * beside ninefold under the same load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1000.0 * (double)t.tv_sec + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    double spin_ms = argc > 1 ? atof(argv[1]) : 88.0;
    char line[256];
    volatile unsigned long work = 0;
    while (fgets(line, sizeof line, stdin)) {       /* the opponent's move: the clock runs */
        double start = now_ms();
        int count = 0, row = -1, col = -1;
        if (!fgets(line, sizeof line, stdin) || sscanf(line, "%d", &count) != 1) return 0;
        for (int i = 0; i < count; i++) {
            int r, c;
            if (!fgets(line, sizeof line, stdin)) return 0;
            if (i == 0 && sscanf(line, "%d %d", &r, &c) == 2) {
                row = r;
                col = c;
            }
        }
        while (now_ms() - start < spin_ms) work++;
        printf("%d %d\n", row, col);
        fflush(stdout);
    }
    return 0;
}
