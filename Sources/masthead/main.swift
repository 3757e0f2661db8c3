import Glibc
import MastheadCLI

exit(MastheadTool.run(Array(CommandLine.arguments.dropFirst())))
