//! Rebuilds the crate when embedded template or schema trees change (include_dir! does not track
//! files added to a directory on stable Rust).

fn main() {
    for dir in ["flavors", "clusterclasses", "schemas"] {
        println!("cargo:rerun-if-changed={dir}");
    }
}
