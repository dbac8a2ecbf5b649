/// A C library opened with `dlopen` on first use rather than linked (CLibical, CCurl and
/// CLibxml2, whose shims share `Sources/DynamicLoading/dynamic_loading.h`): its table of
/// functions, filled by the shim's load function, or why it could not be loaded.
package enum DynamicLibrary {
    /// Why a library could not be loaded: the dynamic loader's message.
    package struct Failure: Error {
        package var reason: String
    }

    /// Runs a shim's load function (`X_load(table, error, size)`, 0 on success) on a new
    /// table and an error buffer. The table lives as long as the process.
    package static func load<Table>(
        _ load: (UnsafeMutablePointer<Table>, UnsafeMutablePointer<CChar>, Int) -> Int32
    ) -> Result<UnsafePointer<Table>, Failure> {
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        var error = [CChar](repeating: 0, count: 512)
        guard load(table, &error, error.count) == 0 else {
            table.deallocate()
            return .failure(Failure(reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return .success(UnsafePointer(table))
    }
}
