"""The `gatehouse` command line: the argparse tree, one module per command; they parse arguments and print."""
