#include "dmc/mount/page_cache_drops.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "test_support/scratch_dir.h"

namespace diskcond::mount {
namespace {

TEST(MountPageCacheDrops, ReadsTheKernelsCountFromVmstat) {
  EXPECT_EQ(parse_drop_pagecache("nr_free_pages 12\ndrop_pagecache 669\ndrop_slab 676\n"), 669u);
  EXPECT_EQ(parse_drop_pagecache("drop_pagecache 0"), 0u);
  EXPECT_EQ(parse_drop_pagecache("drop_slab 676\n"), std::nullopt);
  EXPECT_EQ(parse_drop_pagecache("drop_pagecache x\n"), std::nullopt);
  EXPECT_EQ(parse_drop_pagecache("drop_pagecache_other 3\n"), std::nullopt);
  EXPECT_EQ(parse_drop_pagecache(""), std::nullopt);
}

TEST(MountPageCacheDrops, FollowsTheFileAndIsUnavailableWithoutIt) {
  test_support::ScratchDir dir("drops");
  const std::string path = dir.path() + "/vmstat";
  std::ofstream(path) << "a 1\ndrop_pagecache 3\n";
  PageCacheDrops drops(path.c_str());
  ASSERT_FALSE(drops.unavailable());
  EXPECT_EQ(drops.now(), 3u);
  EXPECT_EQ(drops.recent(1), 3u);
  std::ofstream(path) << "a 1\ndrop_pagecache 4\n";
  EXPECT_EQ(drops.recent(2), 3u);  // read less than kRecentNs ago
  EXPECT_EQ(drops.recent(1 + PageCacheDrops::kRecentNs), 4u);
  EXPECT_EQ(drops.now(), 4u);

  EXPECT_TRUE(PageCacheDrops((dir.path() + "/none").c_str()).unavailable());
  std::ofstream(path) << "a 1\n";
  EXPECT_TRUE(PageCacheDrops(path.c_str()).unavailable());
}

TEST(MountPageCacheDrops, ThisMachineCountsItsDrops) {
  PageCacheDrops drops;
  ASSERT_FALSE(drops.unavailable()) << "/proc/vmstat has no drop_pagecache";
  EXPECT_TRUE(drops.now().has_value());
}

}  // namespace
}  // namespace diskcond::mount
