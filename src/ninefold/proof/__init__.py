"""The theorem by machine: X's forced win with open boards, found and checked.

`ninefold.proof.search` finds a winning strategy for X with a proof-number
search over the kernel (its hot loop in numba: `ninefold.proof.dfpn`);
`ninefold.proof.certificate` writes it as text, one position a line, and
checks such a text with the reference rules alone.
"""
