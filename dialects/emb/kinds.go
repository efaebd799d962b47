package emb

import "slices"

// ColumnKind names what an embedding column is made from: the TensorFlow
// feature column whose ids feed its lookup. It is the one list of kinds in
// the project: the model generator (frontend/gen) builds columns of these
// kinds, and --lower-emb (lowering/tfgtoemb) reports the columns it finds
// by kind, as the statistics columns-<kind>.
type ColumnKind string

// The column kinds, in ColumnKinds order.
const (
	// KindHashedString: categorical_column_with_hash_bucket over a string
	// feature (StringToHashBucketFast).
	KindHashedString ColumnKind = "hashed_string"
	// KindHashedInt: categorical_column_with_hash_bucket over an integer
	// feature: the ids go through AsString before the hash.
	KindHashedInt ColumnKind = "hashed_int"
	// KindSplitString: a string feature split into tokens by StringSplitV2,
	// then hashed.
	KindSplitString ColumnKind = "split_string"
	// KindIdentity: categorical_column_with_identity over an integer
	// feature, with or without a default for ids out of range.
	KindIdentity ColumnKind = "identity"
	// KindVocabulary: categorical_column_with_vocabulary_list, with or
	// without out-of-vocabulary buckets.
	KindVocabulary ColumnKind = "vocabulary"
	// KindBucketized: bucketized_column over a numeric feature.
	KindBucketized ColumnKind = "bucketized"
	// KindWeighted: weighted_categorical_column: each id weighted by a
	// second feature.
	KindWeighted ColumnKind = "weighted"
	// KindShared: shared_embedding_columns: columns that read one table.
	KindShared ColumnKind = "shared"
	// KindCrossed: crossed_column: the hashed cross of its keys' features
	// (SparseCross), emb.cross over their sources.
	KindCrossed ColumnKind = "crossed"
	// KindSparse: sparse ids of another origin (SparseCrossHashed,
	// external vocabularies, a SparseTensor feature); no feature column of
	// its own.
	KindSparse ColumnKind = "sparse"
	// KindUnmatched: a column --lower-emb identified but could not lower.
	KindUnmatched ColumnKind = "unmatched"
)

// ColumnKinds lists every kind, in the order statistics and summaries
// print them: the feature columns first, then KindSparse and
// KindUnmatched.
var ColumnKinds = []ColumnKind{KindHashedString, KindHashedInt, KindSplitString, KindIdentity, KindVocabulary,
	KindBucketized, KindWeighted, KindShared, KindCrossed, KindSparse, KindUnmatched}

// IsFeatureColumn reports whether k names one of TensorFlow's feature
// columns: every kind but KindSparse and KindUnmatched.
func (k ColumnKind) IsFeatureColumn() bool {
	return k != KindSparse && k != KindUnmatched && slices.Contains(ColumnKinds, k)
}
