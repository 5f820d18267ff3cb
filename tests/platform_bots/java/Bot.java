import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

/** A Riddles.io Ultimate Tic-Tac-Toe bot: plays legal moves by its STRATEGY. */
public class Bot {
    static final String STRATEGY = "random"; // random | first | center | win-if-possible
    static final long SEED = 0;
    static final int[][] LINES = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7},
                                  {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};
    static long state = SEED * 2654435761L + 12345;

    /** The fixtures' LCG, the same in every language. */
    static int below(int n) {
        state = state * 6364136223846793005L + 1442695040888963407L;
        return (int) ((state >>> 33) % n);
    }

    static int cell(int board, int k) {
        return 9 * (3 * (board / 3) + k / 3) + 3 * (board % 3) + k % 3;
    }

    static boolean wins(String[] field, int i, String me) {
        int board = 3 * (i / 27) + (i % 9) / 3;
        for (int[] line : LINES) {
            boolean all = true;
            for (int k : line) {
                int c = cell(board, k);
                all &= c == i || field[c].equals(me);
            }
            if (all) return true;
        }
        return false;
    }

    static int choose(String[] field, String[] macro, String me) {
        List<Integer> legal = new ArrayList<>();
        for (int i = 0; i < 81; i++) {
            if (field[i].equals(".") && macro[3 * (i / 27) + (i % 9) / 3].equals("-1")) legal.add(i);
        }
        if (STRATEGY.equals("first")) return legal.get(0);
        List<Integer> best = new ArrayList<>();
        if (STRATEGY.equals("center")) {
            for (int i : legal) if (i % 3 == 1 && (i / 9) % 3 == 1) best.add(i);
            if (best.isEmpty()) for (int i : legal) if (i % 3 != 1 && (i / 9) % 3 != 1) best.add(i);
        }
        if (STRATEGY.equals("win-if-possible")) {
            for (int i : legal) if (wins(field, i, me)) best.add(i);
        }
        if (best.isEmpty()) best = legal;
        return best.get(below(best.size()));
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String me = "0";
        String[] field = null, macro = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 3 && parts[0].equals("settings") && parts[1].equals("your_botid")) {
                me = parts[2];
            } else if (parts.length == 4 && parts[0].equals("update") && parts[2].equals("field")) {
                field = parts[3].split(",");
            } else if (parts.length == 4 && parts[0].equals("update") && parts[2].equals("macroboard")) {
                macro = parts[3].split(",");
            } else if (parts.length >= 2 && parts[0].equals("action") && parts[1].equals("move")) {
                int i = choose(field, macro, me);
                System.out.println("place_disc " + (i % 9) + " " + (i / 9));
                System.out.flush();
            }
        }
    }
}
