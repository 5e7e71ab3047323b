"""Released revisions never change: a database migrated with a revision as it was released must reach the
head by the revisions as they are now. Revisions 0036, 0037 and 0040 were edited after they were committed,
and databases migrated between those edits could not upgrade ("column p.reason does not exist"). A new
revision is made instead; when one is added, the revision it follows is released and its hashes go here."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

VERSIONS = Path(__file__).resolve().parent.parent / "migrations" / "versions"

#: the SHA-256 of every file of every revision but the newest
RELEASED = {
    "0001_foundation.py": "968f6c4514051568d6e36bad26215f35e9cab4818becaa2288b80c6b693472c3",
    "0001_foundation.sql": "f96459f916d5a5ba1b76d3a1956f392f00349be55b4f4b0182e5981c8e15fb85",
    "0002_agent_traces.py": "4c5addc878b7ed9e82d4bc7c4fe268b9c60b146681d451ee5d9fe1a1d84c8c55",
    "0002_agent_traces.sql": "5da06d0aabc485b2d7a62a44a225af9e3cd3e08654c2cdd46135b54ba3d1fc78",
    "0003_retrieval.py": "9e1cf5072ac89d8a73308bb275e3250cc9c6239a4edd7b8058fe843f20a343fb",
    "0003_retrieval.sql": "c30672ecf81290825527aa3711f2c3e36d44376b9bc643398819beb435f62aa1",
    "0004_lifecycle.py": "43607249bcb2852213f89f9fb346aed0937f12eb8f6e9701ff802984c2cd4454",
    "0004_lifecycle.sql": "72bf1ce8ee19c9a55d9b8f35d6b1cb2016d3f3049f4d52f9583e7116e2d72154",
    "0005_holding_speed.py": "7c582d17470441e1c7e02fe1e8063172a02a23bdc5bdf63df81d5517e0e4e860",
    "0005_holding_speed.sql": "fbc09769a088e6588bef65ecd650ea6c12e96d236bc2d28b9741a3d7f0d38f96",
    "0006_ownership.py": "6345e822facffd81b606c6ceb9e5398a3b8637931ed8cc88f34564b7fc147ecd",
    "0006_ownership.sql": "b9a2b232d02e3996c2b34ea8f15ba914141d9b13be8e0aae8e29562e2b2a4efa",
    "0007_closure_reads.py": "f857241fd4b495e5f4f0d9ecd8f64f85637efb444a47da89c4edbae3a8b3f431",
    "0007_closure_reads.sql": "15dc1d2178de5077d4c760c63eb88fddf16118a5e2f2fbdecadaad192e22330e",
    "0008_leaf_entries.py": "a536f777b3a3dcad140e0ff6386dea0003529ebf8e2d71d0333dd26e0f72358a",
    "0008_leaf_entries.sql": "dfd7458a52f02b34872380f98e2ec7148531d6955333d98628b9a5a52bb056c2",
    "0009_related_beliefs.py": "19fd78f6655f3221d4ef622b01e1d5ed57d2e43ca440997afae72b4754f27ae5",
    "0009_related_beliefs.sql": "60cb4e6ca0d4fd1ddcb04bcc1374af9b0d4dfbbf1cdf6613c9e50f7bcdd8b7b8",
    "0010_truth_at_the_edges.py": "88498ae330ca23da4ecb6e1a5d99bb2981d98910aacd90af4fe64e2374a6725a",
    "0010_truth_at_the_edges.sql": "f9b9299598143ba2458e13a2f33f17ba5e68bc16b729f5332eb483af3faf66f2",
    "0011_error_codes.py": "639c577c25d8d8697b5ce87fb2b69e81017920b323508836efd57bc3c0d2790f",
    "0011_error_codes.sql": "f81b17b5c022f32e2af6c76fa6405353b6d734aaeaede71a0a9cdf830d5c089f",
    "0012_internal_names.py": "1f3ad1de5d71711326e0ee30c3a1aeebf9ed0948d37c214bbf3b4b7d769124d8",
    "0012_internal_names.sql": "5e27dc5cb9b5e8e60c409747d78ad3d4412f7e50c57ebebab6dec61f9fc9fd2f",
    "0013_typed_api.py": "4299974e82d91ada73289515cd91423d38881199aef44614e226a28598a04c4e",
    "0013_typed_api.sql": "c465055fcb8eeb9dc69ed185a3a50bf2949f2fa914933b48fea3619a730f0f89",
    "0014_agent_access.py": "92514ade5a50091b19857e39b52f920f9ee231bbb57045c3142e3479a122fce3",
    "0014_agent_access.sql": "5c90b469c1b7d91bdb8441381efc420bb194c3971a74fd872e0d63d76d5c5cad",
    "0015_extension_schema.py": "f915c7c98caffd329b2336c6fd306df4e42ae9318cf1b581fecaa825dfc1b26a",
    "0015_extension_schema.sql": "6f37e106963600c1c4d339b8c7c9fca60429346341757c9b482724faf4250300",
    "0016_agent_logins.py": "3f09830d46195558423cdb0f1d1cc12de1e3e0cfe2d1d7bbac0361aa6fca239f",
    "0016_agent_logins.sql": "6022e0a1c020c79f7fee49de55d15cf18289996c062802ac6606087e63f15765",
    "0017_hardening.py": "663f1c40783e6c7ff2f17e3d63452544ec4e500f6e3796f53a13161b4243a5ef",
    "0017_hardening.sql": "6e66fa62ccb8156fec549f39c16a7afd555da7c5059825313a7e8327c2a9dd0e",
    "0018_jobs.py": "015143accf3d5ebfa5cebcabfc59bde3e3d9e2cd42613f5cd7b47a104f235746",
    "0018_jobs.sql": "1b22dccb7078c8fe8d404f815c72b0211ae7946d8c00ec672b6f2aeab908efdb",
    "0020_turns.py": "2ffca6aa29a5ca8770ac7dca5b6938cf1c7b77e83ac6870be9c506e8bf61160b",
    "0020_turns.sql": "527c6fc7d547bdb44497e9769711620547a5c6635922b7a7585e9f5ceba87793",
    "0021_ranking_stats.py": "7e3b7e239da8776203b19a09eb4b71187f7a6e65e9bc22359c7d21343d2fddd3",
    "0021_ranking_stats.sql": "b4fef8d5dc28e66c15553aeaf8f80d7e67c4585a1058a90c2d34900e654daa26",
    "0022_supports.py": "0d6cb888132e397c20b6f73fb8d7728ee56730181ff1c4c426719f774a4369d6",
    "0022_supports.sql": "f1c64b7d59ff8bf46d8ea1feb9768717cf4894e89f7f0b5ef78b3bfeed9844d9",
    "0024_edges.py": "c4442fb4775bc8cec5277b42471c6bf39bacecc9f9fb461a2661636f644c593f",
    "0024_edges.sql": "e93ab9917972d57808f29fbd353ed4b509e5292e39ef88e439f0ba60f3773094",
    "0028_impact.py": "e0a8cd69d474bd6b01081572d6906bc59d874d71428958787e333a9dfea0792e",
    "0028_impact.sql": "1d82e5dc680440e53ec26d32c98d27c5ffcdd0b75361ab96abbb24be37684539",
    "0029_relation_end.py": "6c8c0dd4fd05e12fc93b921bcfad61cc3891f1553fa0b96ecb423cf2b4d6fbd2",
    "0029_relation_end.sql": "48f8be859121dba1afabf006083311fa8964cf07ba71f1884c1503e016264b8b",
    "0030_decision_edges.py": "02409660aba9348e461f373aa78e4ce4c0203a9f243981e3cb6ee9453333181a",
    "0030_decision_edges.sql": "18303a302b784574b407545a712c2522bfb44558017e0400b66710d4320e71cd",
    "0031_walked_propagation.py": "91f9e7a874ceb44431fcac27504ef8f64c1c22991e1b0f585465fddd0f354869",
    "0031_walked_propagation.sql": "ba7fe2a2bbba8cb1302f0cb90a339e0afbfd72d06aa561f46be3d3e9fa1e3673",
    "0032_audit_per_table.py": "43d3115c993b63f0195747529fddd594bae66a34d44a2da5e037487650f5cdb7",
    "0032_audit_per_table.sql": "44306bcba3d7c7a2bee179d36bbdc0cd17c39740c6a27df3ba4f09e2e575f4b5",
    "0033_propagate_factors.py": "d2f4d00a21fbb8f15aeec8dba6d747e6c8c96412c5973443eafe2a119a9436db",
    "0033_propagate_factors.sql": "55fb0e3605cbbfed0a3bcf1d8d7023a5a9d23242ce96a0242ebe2bbbf5f75039",
    "0034_fragment_speakers.py": "1380baec1325ad3de9f18710db5557715974f3e8135fe2faef2a93d67f106f99",
    "0034_fragment_speakers.sql": "d1ee188c9b2ce14e7b335c60bb8881dad786d3a0d17232777fc6696911f41aab",
    "0035_listing_order.py": "e8a384d45aa367ecfed6ead43178d30f3ad38a4b7e0ab3cbfaedea63ceddf234",
    "0035_listing_order.sql": "2b4bd7e171380cf78afb7faee0d5aeb0093b7d6ac523623615a83cec6c6a06b1",
    "0036_retraction_periods.py": "10a227b4a916c9c8dbf887144806f28226dd63a7f6e1948e44351f2b1b7924e1",
    "0036_retraction_periods.sql": "3f69736db7d771e941c97d01070182f28a9926c7e15e8c24da019da7477ee3df",
    "0037_forget_speakers.py": "aa47660b8c2e3afe836a626abc661b8c80df50fb4d8f110423e8ba385fde639d",
    "0037_forget_speakers.sql": "2e8f3b4b0e90fb95885f3b13dda975cd3def347ab01319c7a64ac75626bae4fc",
    "0038_pending_turns.py": "d3ded7da97398d28c74335c5a66d22d68100ba184e4e8f8a544f21dcd6f08117",
    "0038_pending_turns.sql": "d2145072a627fe5f6e5f04da9a02b5e85c75443d6ce5d2e0bd4742d88dcd2b0d",
    "0039_redaction_index.py": "21806ec0db557ee6a1ceff7b598f40e26fb0706bcdc1759619c8f51b0d014f04",
    "0039_redaction_index.sql": "21459d5f2dfc606ca5c9baebb0e673e418294adf36c8cd110800731621a09415",
    "0040_cascade_indexes.py": "edee8f6e4265e19b2bdb8cf98157d685caf50c255b2c8f27d4f2e287c5c2c1cd",
    "0040_cascade_indexes.sql": "c4743431f382bab707bda9173441a21ab396894dcde28902b75e8dbe6663254e",
    "0041_reference_indexes.py": "fa692bf46c2896c4daf343c488ffc85f8bb12c0db7ef03bc41a000d5ea83ad29",
    "0041_reference_indexes.sql": "464031d0f170d260f319f99cafc84a83c8f327475b9508f0f34c006c53f2c03d",
    "0042_run_owner.py": "f70910c9363517861bbf865492a6d8ebdb692c5d51aa0080e6cf20d618bcfe10",
    "0042_run_owner.sql": "7f825cc3b046f8e8f385323050f3f5c533626d1b8b4231f5692b46b0fe68389f",
    "0043_belief_sha256.py": "679f0782dc2c557d722cabc4ba535321aee4d8c853656011fc3a365a15cd6954",
    "0043_belief_sha256.sql": "67bb17d9a891896b2ff8c86f91bd1ddf56957b5ad3ded4c6d7da6c6be9aacf3b",
    "0044_forget_report.py": "ff5aa6796ad89bba4c1ea30596134ba5306168833e9b986e59d00cb28e29e723",
    "0044_forget_report.sql": "2d20adfb418c66d082502993ea40b8612f27d35fb8512c1e2dc02d1b55bf525d",
    "0045_belief_recent.py": "35dfc0c64f8dd5c3af49c514e1ef8d6cf63be88bf8c68f7789ad631387eacfb3",
    "0045_belief_recent.sql": "b4e1b88d14d861888a9cde5945ed56356de68b4f75f85e54535fdfd4bded7062",
    "0046_forget_labels_masked.py": "8101ad7a62d470e4dede441bd1950b13641420cd87be0462d8b78eb8f06b6823",
    "0046_forget_labels_masked.sql": "3e745c18b550c1818c73004ba5b0d3d2d109f695f196ccd34f5f01a2f8b09b17",
    "0047_resolution_order.py": "c65eda8fdada78836f586d910c75f81961368335e88d7c4197c25592ee08d9ac",
    "0047_resolution_order.sql": "8d67f2ea46c7c35694ec3b377b49232df6ffee2a39bd73e777c3190cfb5f48c0",
    "0048_redaction_lines.py": "c2fd66fbf8ef911e2a0da4024e824497d23f3bf09922b7c20d3ed676289b89e6",
    "0048_redaction_lines.sql": "f22267a12c9d57cfac9a7da332071d60668b25e7d8e76c60d443f733a1707da1",
    "0049_step_world.py": "48af30e2680b70496b0db4b20877080f1a0dd5604198830bc346ecea714d73c0",
    "0049_step_world.sql": "10a1f7f1cf9e0a05cc3498c8c248bf05b42db0d5a2c0f588335a62e689bdf43b",
    "0050_keyed_digests.py": "a7082cff34ff5638dfd8eeeb100572233864d720cc9034b7643de95fe85a2fe4",
    "0050_keyed_digests.sql": "94538c99fa2321d14e556d1ab9452aa402ad80eda502c8eeab9bc56f873836bf",
}


def test_released_revisions_are_unchanged_and_only_the_newest_is_open() -> None:
    files = sorted(p for p in VERSIONS.iterdir() if p.is_file() and re.match(r"\d{4}_", p.name))
    newest = max(p.name[:4] for p in files)
    released = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files if p.name[:4] != newest}
    changed = sorted(name for name, digest in released.items() if RELEASED.get(name) != digest)
    assert not changed, (f"released revisions changed or not listed: {changed}: make a new revision instead"
                         " (or, having just added one, list the one before it in RELEASED)")
    assert not set(RELEASED) - set(released), "a released revision went missing"
