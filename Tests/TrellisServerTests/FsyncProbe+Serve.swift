import Foundation
import TrellisRuntime
import TrellisTesting

extension FsyncProbe {
    /// `trellis serve` on `served`'s configuration and data directory, started as
    /// ``ServedBinary/start()`` starts it, with the probe loaded; returns once it is serving.
    func serve(_ served: ServedBinary) throws -> (process: Process, port: Int) {
        let process = Process()
        process.executableURL = CommandLineTests.executable
        process.arguments = [
            "serve", "--config", served.config.url.path, "--host", "127.0.0.1", "--port", "0", "--data-dir", served.dataDirectory.path,
        ] + served.accessLogArguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let log = LogReader(pipe.fileHandleForReading)
        try process.run()
        guard let serving = log.waitForLine(containing: "serving"), let port = CommandLineTests.port(in: serving) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure(description: "trellis serve did not start with the fsync probe:\n\(log.text)")
        }
        return (process, port)
    }
}
