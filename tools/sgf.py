"""sgf.py - the games of the SGF files c-gomoku-cli writes (tools/match.sh).

One reader for the match tools (match_score.py, judge_games.py,
fit_winrate.py), so that they agree on what a game, its opening, its
result and a void game are.

c-gomoku-cli writes one game as
  (;FF[4]GM[4]GN[3]...RU[0]SZ[15]PB[A]PW[B]RE[B+1]...
  ;B[hh]C[opening move];W[ii]C[120ms];B[jj]C[88ms]...)
with the opening's stones marked "opening move", the engines' moves with
their time, and RE[B+..], RE[W+..] or RE[0] (a draw).
"""
import os
import re

GAME = re.compile(r"\(;FF\[4\](.*?)\)", re.S)
PROP = re.compile(r"([A-Z]{2})\[([^\]]*)\]")
MOVE = re.compile(r";([BW])\[([a-z])([a-z])\](?:C\[([^\]]*)\])?")
OWN = re.compile(r"\d+ms")


class Game:
    """One game: file (its index among the paths), name (the file's base
    name), gn, black, white, result (RE), rule (RU, c-gomoku-cli's number),
    size, moves [(x, y)] from the top left, opening (how many of the first
    moves are the opening's) and own (how many moves the engines made)."""

    def __init__(self, file, name, props, moves, opening, own):
        self.file, self.name = file, name
        self.gn = props.get("GN", "")
        self.black, self.white = props.get("PB"), props.get("PW")
        self.result = props.get("RE", "0")
        self.rule = int(props.get("RU", "0"))
        self.size = int(props.get("SZ", "15"))
        self.moves, self.opening, self.own = moves, opening, own

    @property
    def tag(self):
        return "%s:%s" % (self.name, self.gn or "?")

    @property
    def void(self):
        """No move of the engines' own: a runner or engine failure before
        the first move, whatever RE says."""
        return self.own == 0

    @property
    def winner(self):
        """'B', 'W', or None for a draw."""
        return self.result[0] if self.result.startswith(("B+", "W+")) else None

    def colour_of(self, engine):
        """'B' or 'W' when engine plays in this game, else None."""
        return "B" if self.black == engine else "W" if self.white == engine else None

    def result_for(self, colour):
        """'win', 'loss' or 'draw' for the side of that colour."""
        w = self.winner
        return "draw" if w is None else "win" if w == colour else "loss"


def point(m, size):
    """(x, y) from the top left -> our notation, e.g. (7, 7) on 15x15 -> 'h8'."""
    return "%s%d" % (chr(97 + m[0]), size - m[1])


def read(paths):
    """Yields every Game of the files, in order."""
    for fi, path in enumerate(paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        name = os.path.basename(path)
        for g in GAME.finditer(text):
            body = g.group(1)
            props = dict(PROP.findall(body.split(";", 1)[0]))
            moves, opening, own = [], 0, 0
            for m in MOVE.finditer(body):
                moves.append((ord(m.group(2)) - 97, ord(m.group(3)) - 97))
                if m.group(4) == "opening move":
                    opening = len(moves)
                elif m.group(4) and OWN.fullmatch(m.group(4)):
                    own += 1
            yield Game(fi, name, props, moves, opening, own)
