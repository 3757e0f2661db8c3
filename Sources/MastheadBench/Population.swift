import Foundation
import Glibc
import MastheadCLI
import MastheadFormats
import MastheadSynthetic

/// Writes the population `masthead generate` writes for the options' users and seed to `path`;
/// returns its size in bytes.
func writePopulation(_ options: BenchOptions, to path: String) throws -> Int {
    let catalog = try CommonOptions.catalog(options.catalog)
    var random = SeededGenerator(seed: options.seed)
    let population = SyntheticPopulation(catalog: catalog)
    guard let file = fopen(path, "wb") else { fail("cannot write \(path)") }
    defer { fclose(file) }
    var bytes = 0
    for user in 0..<options.users {
        var line = population.line(user: user, random: &random)
        line.append(0x0A)
        bytes += line.count
        fwrite(line, 1, line.count, file)
    }
    return bytes
}
