import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;

/**
 * A starter bot for Ultimate Tic-Tac-Toe (AI Games and Riddles.io protocols).
 *
 * <p>It reads the position ("update game field", "update game macroboard") and, on
 * "action move", answers "place_move X Y" with the first legal square. Squares are
 * numbered 9 * y + x; a small board may be played where the macroboard says -1.
 * Put your strategy in choose.
 */
public class Bot {
    /** The square (0-80) to play: here the first legal one. */
    static int choose(String[] field, String[] macroboard) {
        // Riddles.io's empty square, or AI Games' (where "." never appears)
        String empty = java.util.Arrays.asList(field).contains(".") ? "." : "0";
        for (int i = 0; i < 81; i++) {
            int board = 3 * (i / 27) + (i % 9) / 3;
            if (field[i].equals(empty) && macroboard[board].equals("-1")) return i;
        }
        throw new IllegalStateException("no legal move");
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String[] field = new String[0], macroboard = new String[0];
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 4 && parts[0].equals("update") && parts[2].equals("field")) {
                field = parts[3].split(",");
            } else if (parts.length == 4 && parts[0].equals("update")
                       && parts[2].equals("macroboard")) {
                macroboard = parts[3].split(",");
            } else if (parts.length >= 2 && parts[0].equals("action") && parts[1].equals("move")) {
                int i = choose(field, macroboard);
                System.out.println("place_move " + (i % 9) + " " + (i / 9));
                System.out.flush();
            }
        }
    }
}
